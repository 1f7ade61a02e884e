#include "exporter/http_server.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"

namespace rxe::exporter {
namespace {

// Replaces httplib's default (SO_REUSEPORT, which would let a second daemon
// silently share the port) with SO_REUSEADDR, and makes "::" dual-stack.
void ListenSocketOptions(int sock) {
  int yes = 1;
  setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  int domain = 0;
  socklen_t len = sizeof domain;
  if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_INET6) {
    int no = 0;
    setsockopt(sock, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof no);
  }
}

}  // namespace

HttpServer::HttpServer(ListenAddress address, std::shared_ptr<TlsState> tls)
    : address_(std::move(address)), tls_(tls != nullptr) {
  if (tls) {
    server_ = std::make_unique<httplib::SSLServer>(
        [tls](SSL_CTX& ctx) { return tls->SetupContext(ctx); });
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  server_->new_task_queue = [] { return new httplib::ThreadPool(kWorkerThreads); };
  server_->set_socket_options(ListenSocketOptions);
  // Headers and body are separate writes: without TCP_NODELAY, Nagle plus the
  // client's delayed ACK adds ~40 ms to every keep-alive response.
  server_->set_tcp_nodelay(true);
  // Short keep-alive: idle connections hold a worker, and shutdown waits for them.
  server_->set_keep_alive_timeout(1);
  server_->set_keep_alive_max_count(100);
  server_->set_read_timeout(5, 0);
  server_->set_write_timeout(10, 0);
  server_->set_payload_max_length(64 * 1024);
}

HttpServer::~HttpServer() {
  // httplib closes a bound socket only from stop() on a running server: run
  // a listener that was bound but never started, so that Stop() closes it.
  if (port_ != 0 && !thread_.joinable()) Start();
  Stop();
  if (thread_.joinable()) thread_.join();
}

Status HttpServer::Bind() {
  if (!server_->is_valid()) {
    return Error::Make(ErrorCode::kInvalidArgument,
                       "cannot set up TLS for " + address_.text);
  }
  auto try_bind = [this](const std::string& host) -> int {
    errno = 0;
    if (address_.port == 0) return server_->bind_to_any_port(host);
    return server_->bind_to_port(host, address_.port) ? address_.port : -1;
  };
  int port = try_bind(address_.host);
  int err = errno;
  if (port < 0 && address_.ipv4_fallback && err != EADDRINUSE && err != EACCES) {
    log::Warn("cannot listen on IPv6, falling back to IPv4 only",
              {{"address", address_.text}, {"err", std::strerror(err)}});
    address_.host = "0.0.0.0";
    port = try_bind(address_.host);
    err = errno;
  }
  if (port < 0) {
    const std::string what = "cannot listen on " + address_.text;
    if (err != 0) return Error::FromErrno(err, what);
    return Error::Make(ErrorCode::kUnavailable, what);
  }
  port_ = port;
  return Status::Ok();
}

void HttpServer::Start() {
  serving_ = true;
  thread_ = std::thread([this] {
    if (!server_->listen_after_bind()) {
      log::Error("HTTP listener stopped unexpectedly", {{"address", BoundAddress()}});
    }
    serving_ = false;
    std::lock_guard<std::mutex> lock(mu_);
    done_ = true;
    done_cv_.notify_all();
  });
  // stop() is a no-op until the accept loop runs: wait for it (or its end).
  std::unique_lock<std::mutex> lock(mu_);
  while (!server_->is_running() && !done_) {
    done_cv_.wait_for(lock, std::chrono::milliseconds(1));
  }
}

void HttpServer::Stop() { server_->stop(); }

bool HttpServer::Join(std::chrono::steady_clock::time_point deadline) {
  if (!thread_.joinable()) return true;
  std::unique_lock<std::mutex> lock(mu_);
  if (!done_cv_.wait_until(lock, deadline, [this] { return done_; })) return false;
  lock.unlock();
  thread_.join();
  return true;
}

}  // namespace rxe::exporter
