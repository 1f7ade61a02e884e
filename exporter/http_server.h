// One HTTP(S) listener. Binding is separate from serving so that bind errors
// are reported at start, before READY=1.
//
// httplib parses requests and runs the routes (process_request), but the
// accept loop and the connections are ours, so that a listener stays
// available under slow or many clients (see HttpLimits):
//  - every connection has its own thread; the request head is buffered first,
//    within one whole-request deadline and a size/line cap (431 beyond it);
//  - at most max_connections are open; at the cap, a new connection evicts
//    the oldest connection that is idle or still sending its request head,
//    or is closed at once when every connection is busy in a handler.
#pragma once

#include <httplib.h>
#include <openssl/ssl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "common/result.h"
#include "exporter/http_limits.h"
#include "exporter/listen_address.h"
#include "exporter/tls_material.h"

namespace rxe::exporter {

class HttpConnection;

class HttpServer {
 public:
  /// Connection counters since start (for logs, tests and the benchmark).
  struct Stats {
    uint64_t accepted = 0;
    uint64_t evicted = 0;           // closed to make room for a new connection
    uint64_t rejected = 0;          // closed at once: every connection was busy
    uint64_t headers_too_large = 0; // answered 431
    size_t open = 0;
  };

  /// `tls` null = plain HTTP; otherwise TLS with the current material of `tls`.
  HttpServer(ListenAddress address, std::shared_ptr<TlsState> tls, HttpLimits limits = {});
  ~HttpServer();  // Stop(), then waits for every connection
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Routes and handlers are installed here.
  httplib::Server& server();
  const ListenAddress& address() const { return address_; }
  bool tls() const { return tls_; }

  /// Binds the socket (port 0 picks a free port, see port()).
  Status Bind();
  int port() const { return port_; }
  /// "127.0.0.1:19791" / "[::1]:19791" with the bound port.
  std::string BoundAddress() const { return address_.HostPort(port_); }

  /// Serves on a new thread.
  void Start();
  /// Closes the listening socket and idle connections; in-flight requests finish.
  void Stop();
  /// Waits for the accept thread and every connection to end. Returns false
  /// if some connection is still open at `deadline`.
  bool Join(std::chrono::steady_clock::time_point deadline);
  bool serving() const { return serving_.load(); }
  Stats stats() const;

 private:
  class Core;
  struct Conn {
    int fd;
    bool idle = true;  // waiting for or reading a request head: may be evicted
    bool evicted = false;
  };

  void AcceptLoop();
  void Admit(int fd);
  void Serve(uint64_t id, int fd);
  void ServeRequests(uint64_t id, HttpConnection& c);
  /// Marks connection `id` idle (evictable) or busy; false if it must close.
  bool SetIdle(uint64_t id, bool idle);

  ListenAddress address_;
  std::shared_ptr<TlsState> tls_state_;
  bool tls_ = false;
  SSL_CTX* ssl_ctx_ = nullptr;  // null with tls_ = the TLS setup failed
  const HttpLimits limits_;
  std::unique_ptr<Core> core_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: Stop() wakes the accept loop
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> serving_{false};

  mutable std::mutex mu_;  // guards the fields below
  std::condition_variable cv_;
  std::map<uint64_t, Conn> conns_;  // ordered by age
  uint64_t next_id_ = 0;
  size_t leaving_ = 0;  // evicted, not yet closed
  bool stopping_ = false;
  bool accept_done_ = true;
  Stats stats_;
};

}  // namespace rxe::exporter
