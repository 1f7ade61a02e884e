// One HTTP(S) listener (cpp-httplib) on its own thread. Binding is separate
// from serving so that bind errors are reported at start, before READY=1.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "common/result.h"
#include "exporter/listen_address.h"
#include "exporter/tls_material.h"

namespace rxe::exporter {

class HttpServer {
 public:
  static constexpr size_t kWorkerThreads = 8;  // connections served at once per listener

  /// `tls` null = plain HTTP; otherwise an httplib::SSLServer using it.
  HttpServer(ListenAddress address, std::shared_ptr<TlsState> tls);
  ~HttpServer();  // Stop() + Join()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  httplib::Server& server() { return *server_; }
  const ListenAddress& address() const { return address_; }
  bool tls() const { return tls_; }

  /// Binds the socket (port 0 picks a free port, see port()).
  Status Bind();
  int port() const { return port_; }
  /// "127.0.0.1:19791" / "[::1]:19791" with the bound port.
  std::string BoundAddress() const { return address_.HostPort(port_); }

  /// Serves on a new thread.
  void Start();
  /// Closes the listening socket; in-flight requests finish.
  void Stop();
  /// Waits for the serving thread (all connection workers) to end. Returns
  /// false if it is still running at `deadline`.
  bool Join(std::chrono::steady_clock::time_point deadline);
  bool serving() const { return serving_.load(); }

 private:
  ListenAddress address_;
  bool tls_ = false;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> serving_{false};
  std::mutex mu_;
  std::condition_variable done_cv_;
  bool done_ = false;
};

}  // namespace rxe::exporter
