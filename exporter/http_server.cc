#include "exporter/http_server.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "exporter/http_connection.h"

namespace rxe::exporter {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kListenBacklog = 128;  // httplib listens with 5

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

// accept(2): errors of the connection being accepted (pending network errors, a firewall's
// EPERM) are for the next accept to move past; only others stop the listener.
bool RetryableAcceptError(int err) {
  switch (err) {
    case EINTR: case EAGAIN: case ECONNABORTED: case EPROTO: case ENOPROTOOPT: case EPERM:
    case ENETDOWN: case ENETUNREACH: case EHOSTDOWN: case EHOSTUNREACH: case ENONET:
    case EOPNOTSUPP: case ETIMEDOUT:
      return true;
    default:
      return false;
  }
}

std::string PlainResponse(int status, const char* reason, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
}

}  // namespace

/// httplib's request parser and router, driven by our connections.
class HttpServer::Core : public httplib::Server {
 public:
  using httplib::Server::process_request;
  /// The socket bound by bind_to_port(); httplib no longer owns it.
  int TakeListenSocket() { return svr_sock_.exchange(INVALID_SOCKET); }
};

HttpServer::HttpServer(ListenAddress address, std::shared_ptr<TlsState> tls, HttpLimits limits)
    : address_(std::move(address)),
      tls_state_(std::move(tls)),
      tls_(tls_state_ != nullptr),
      limits_(limits),
      core_(std::make_unique<Core>()) {
  if (tls_state_) {
    ssl_ctx_ = SSL_CTX_new(TLS_server_method());
    if (ssl_ctx_ != nullptr && !tls_state_->SetupContext(*ssl_ctx_)) {
      SSL_CTX_free(ssl_ctx_);
      ssl_ctx_ = nullptr;
    }
  }
  core_->set_socket_options(ListenSocketOptions);
  // Headers and body are separate writes: without TCP_NODELAY, Nagle plus the
  // client's delayed ACK adds ~40 ms to every keep-alive response.
  core_->set_tcp_nodelay(true);
  core_->set_payload_max_length(64 * 1024);
}

HttpServer::~HttpServer() {
  Stop();
  if (thread_.joinable()) thread_.join();
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return conns_.empty(); });  // their threads use this object
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (ssl_ctx_ != nullptr) SSL_CTX_free(ssl_ctx_);
}

httplib::Server& HttpServer::server() { return *core_; }

Status HttpServer::Bind() {
  if (tls_ && ssl_ctx_ == nullptr) {
    return Error::Make(ErrorCode::kInvalidArgument, "cannot set up TLS for " + address_.text);
  }
  auto try_bind = [this](const std::string& host) -> int {
    errno = 0;
    if (address_.port == 0) return core_->bind_to_any_port(host);
    return core_->bind_to_port(host, address_.port) ? address_.port : -1;
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
  listen_fd_ = core_->TakeListenSocket();
  ::listen(listen_fd_, kListenBacklog);  // raises the backlog of the listening socket
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) return Error::FromErrno(errno, "eventfd for " + address_.text);
  port_ = port;
  return Status::Ok();
}

void HttpServer::Start() {
  if (listen_fd_ < 0 || thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    accept_done_ = false;
  }
  serving_ = true;
  thread_ = std::thread([this] { AcceptLoop(); });
}

void HttpServer::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  stopping_ = true;
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    (void)::write(wake_fd_, &one, sizeof one);
  }
  for (auto& [id, c] : conns_) {
    if (c.idle && !c.evicted) ::shutdown(c.fd, SHUT_RDWR);
  }
}

bool HttpServer::Join(Clock::time_point deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_until(lock, deadline, [this] { return accept_done_ && conns_.empty(); })) {
    return false;
  }
  lock.unlock();
  if (thread_.joinable()) thread_.join();
  return true;
}

HttpServer::Stats HttpServer::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  s.open = conns_.size();
  return s;
}

void HttpServer::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    const int n = ::poll(fds, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || fds[1].revents != 0) break;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
      Admit(fd);
    } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
      log::Warn("cannot accept an HTTP connection", {{"address", BoundAddress()},
                                                     {"err", std::strerror(errno)}});
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } else if (!RetryableAcceptError(errno)) {
      log::Error("HTTP listener stopped unexpectedly",
                 {{"address", BoundAddress()}, {"err", std::strerror(errno)}});
      break;
    }
  }
  ::close(listen_fd_);  // no new connections queue up after Stop()
  listen_fd_ = -1;
  serving_ = false;
  std::lock_guard<std::mutex> lock(mu_);
  accept_done_ = true;
  cv_.notify_all();
}

void HttpServer::Admit(int fd) {
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_) {
    ::close(fd);
    return;
  }
  if (conns_.size() - leaving_ >= limits_.max_connections) {
    auto oldest = conns_.begin();
    while (oldest != conns_.end() && (!oldest->second.idle || oldest->second.evicted)) ++oldest;
    if (oldest == conns_.end()) {
      ++stats_.rejected;
      lock.unlock();
      log::Debug("HTTP connection refused: every connection is busy",
                 {{"address", BoundAddress()}});
      ::close(fd);
      return;
    }
    oldest->second.evicted = true;
    ++leaving_;
    ++stats_.evicted;
    ::shutdown(oldest->second.fd, SHUT_RDWR);
  }
  int yes = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
  const uint64_t id = next_id_++;
  conns_.emplace(id, Conn{fd});
  ++stats_.accepted;
  lock.unlock();
  try {
    std::thread([this, id, fd] { Serve(id, fd); }).detach();
  } catch (const std::system_error& e) {
    log::Warn("cannot start an HTTP connection thread", {{"err", e.what()}});
    lock.lock();
    conns_.erase(id);
    cv_.notify_all();
    ::close(fd);
  }
}

bool HttpServer::SetIdle(uint64_t id, bool idle) {
  std::lock_guard<std::mutex> lock(mu_);
  Conn& c = conns_.at(id);
  if (c.evicted || (idle && stopping_)) return false;
  c.idle = idle;
  return true;
}

void HttpServer::Serve(uint64_t id, int fd) {
  {
    HttpConnection conn(fd, ssl_ctx_, limits_);  // closes fd
    ServeRequests(id, conn);
    // conn closes the fd next, and accept(2) hands its number out again at once: from here on
    // neither Admit's eviction nor Stop() may shut it down (it could be the next connection's).
    std::lock_guard<std::mutex> lock(mu_);
    Conn& c = conns_.at(id);
    c.fd = -1;
    c.idle = false;
    if (!c.evicted) {
      c.evicted = true;  // leaving: no longer counts against the connection cap
      ++leaving_;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (conns_.at(id).evicted) --leaving_;
  conns_.erase(id);
  cv_.notify_all();
}

void HttpServer::ServeRequests(uint64_t id, HttpConnection& c) {
  // The first request (and the TLS handshake) must arrive within one read
  // timeout of the accept; later ones within the idle timeout, then one read
  // timeout from their first byte.
  const auto first_deadline = Clock::now() + limits_.read_timeout;
  if (!c.Handshake(first_deadline)) return;
  for (size_t n = 0; n < limits_.max_requests_per_connection; ++n) {
    if (!SetIdle(id, true)) return;
    const auto wait_deadline = n == 0 ? first_deadline : Clock::now() + limits_.idle_timeout;
    if (!c.WaitForRequest(wait_deadline)) return;
    const auto head = c.ReadHead(n == 0 ? first_deadline : Clock::now() + limits_.read_timeout);
    if (head == HttpConnection::HeadResult::kClosed) return;
    if (head == HttpConnection::HeadResult::kTooLarge) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++stats_.headers_too_large;
      }
      c.WriteRaw(PlainResponse(431, "Request Header Fields Too Large",
                               "Request header fields too large, see --web.max-header-bytes\n"));
      c.LingeringClose();
      return;
    }
    if (!SetIdle(id, false)) return;
    bool closed = false;
    bool stopping;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping = stopping_;
    }
    const bool last = stopping || n + 1 == limits_.max_requests_per_connection;
    const bool ok = core_->process_request(c, last, closed,
                                           [&c](httplib::Request& req) { req.ssl = c.ssl(); });
    c.FinishRequest();
    if (!ok || closed || last) return;
  }
}

}  // namespace rxe::exporter
