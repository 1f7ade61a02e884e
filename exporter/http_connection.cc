#include "exporter/http_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <openssl/err.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/log.h"

namespace rxe::exporter {
namespace {

constexpr size_t kReadChunk = 4096;

void AddressOf(const sockaddr_storage& a, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto& in = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &in.sin_addr, text, sizeof text);
    port = ntohs(in.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &in6.sin6_addr, text, sizeof text);
    port = ntohs(in6.sin6_port);
  }
  ip = text;
}

}  // namespace

HttpConnection::HttpConnection(int fd, SSL_CTX* ctx, const HttpLimits& limits)
    : fd_(fd), limits_(limits) {
  if (ctx != nullptr) {
    ssl_ = SSL_new(ctx);
    if (ssl_ == nullptr || SSL_set_fd(ssl_, fd_) != 1) tls_failed_ = true;
  }
  read_deadline_ = Clock::now() + limits_.read_timeout;
}

HttpConnection::~HttpConnection() {
  if (ssl_ != nullptr) {
    if (SSL_is_init_finished(ssl_)) SSL_shutdown(ssl_);  // best effort, non-blocking
    SSL_free(ssl_);
  }
  ::close(fd_);
}

bool HttpConnection::Poll(short events, Clock::time_point deadline) const {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 60000)));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

bool HttpConnection::Handshake(Clock::time_point deadline) {
  if (tls_failed_) {
    char err[256];
    ERR_error_string_n(ERR_get_error(), err, sizeof err);
    log::Warn("TLS connection dropped: SSL_new/SSL_set_fd failed (out of memory?)", {{"err", err}});
    return false;
  }
  if (ssl_ == nullptr) return true;
  for (;;) {
    const int rc = SSL_accept(ssl_);
    if (rc == 1) return true;
    const int err = SSL_get_error(ssl_, rc);
    if (err == SSL_ERROR_WANT_READ && Poll(POLLIN, deadline)) continue;
    if (err == SSL_ERROR_WANT_WRITE && Poll(POLLOUT, deadline)) continue;
    return false;
  }
}

ssize_t HttpConnection::ReadSome(char* out, size_t size, Clock::time_point deadline) {
  for (;;) {
    if (ssl_ != nullptr) {
      const int n = SSL_read(ssl_, out, static_cast<int>(std::min<size_t>(size, 1 << 20)));
      if (n > 0) return n;
      const int err = SSL_get_error(ssl_, n);
      if (err == SSL_ERROR_ZERO_RETURN) return 0;
      if (err == SSL_ERROR_WANT_READ && Poll(POLLIN, deadline)) continue;
      if (err == SSL_ERROR_WANT_WRITE && Poll(POLLOUT, deadline)) continue;
      return -1;
    }
    const ssize_t n = ::recv(fd_, out, size, 0);
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && Poll(POLLIN, deadline)) continue;
    return -1;
  }
}

bool HttpConnection::WaitForRequest(Clock::time_point deadline) {
  if (pos_ < buf_.size()) return true;
  if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return true;
  return Poll(POLLIN, deadline);
}

HttpConnection::HeadResult HttpConnection::ReadHead(Clock::time_point deadline) {
  for (;;) {
    const HeadScan scan = ScanRequestHead(std::string_view(buf_).substr(pos_),
                                          limits_.max_header_bytes, limits_.max_header_lines);
    if (scan.state == HeadState::kComplete) {
      read_deadline_ = deadline;
      return HeadResult::kComplete;
    }
    if (scan.state != HeadState::kIncomplete) return HeadResult::kTooLarge;
    char chunk[kReadChunk];
    const ssize_t n = ReadSome(chunk, sizeof chunk, deadline);
    if (n <= 0) return HeadResult::kClosed;
    buf_.append(chunk, static_cast<size_t>(n));
  }
}

void HttpConnection::FinishRequest() {
  buf_.erase(0, pos_);
  pos_ = 0;
  write_deadline_.reset();
}

void HttpConnection::WriteRaw(const std::string& response) {
  (void)write(response.data(), response.size());
}

void HttpConnection::LingeringClose() {
  constexpr size_t kMaxDiscard = 1 << 20;
  const auto deadline = Clock::now() + std::chrono::milliseconds(500);
  if (ssl_ != nullptr) {
    SSL_shutdown(ssl_);
  } else {
    ::shutdown(fd_, SHUT_WR);
  }
  char chunk[kReadChunk];
  for (size_t discarded = 0; discarded < kMaxDiscard;) {
    if (!Poll(POLLIN, deadline)) return;
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return;
    if (n > 0) discarded += static_cast<size_t>(n);
  }
}

bool HttpConnection::is_readable() const {
  if (pos_ < buf_.size()) return true;
  if (ssl_ != nullptr && SSL_pending(ssl_) > 0) return true;
  return Poll(POLLIN, read_deadline_);
}

bool HttpConnection::is_writable() const {
  return Poll(POLLOUT, write_deadline_ ? *write_deadline_ : Clock::now() + limits_.write_timeout);
}

ssize_t HttpConnection::read(char* ptr, size_t size) {
  if (pos_ < buf_.size()) {
    const size_t n = std::min(size, buf_.size() - pos_);
    std::memcpy(ptr, buf_.data() + pos_, n);
    pos_ += n;
    return static_cast<ssize_t>(n);
  }
  return ReadSome(ptr, size, read_deadline_);
}

ssize_t HttpConnection::write(const char* ptr, size_t size) {
  // One deadline for the whole response, from its first byte (not one per write): a client
  // that reads a few bytes now and then cannot hold a connection for ever.
  if (!write_deadline_) write_deadline_ = Clock::now() + limits_.write_timeout;
  const auto deadline = *write_deadline_;
  size_t done = 0;
  while (done < size) {
    if (ssl_ != nullptr) {
      const int n = SSL_write(ssl_, ptr + done, static_cast<int>(std::min<size_t>(size - done, 1 << 20)));
      if (n > 0) {
        done += static_cast<size_t>(n);
        continue;
      }
      const int err = SSL_get_error(ssl_, n);
      if (err == SSL_ERROR_WANT_WRITE && Poll(POLLOUT, deadline)) continue;
      if (err == SSL_ERROR_WANT_READ && Poll(POLLIN, deadline)) continue;
      return -1;
    }
    const ssize_t n = ::send(fd_, ptr + done, size - done, MSG_NOSIGNAL);
    if (n >= 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && Poll(POLLOUT, deadline)) continue;
    return -1;
  }
  return static_cast<ssize_t>(done);
}

void HttpConnection::get_remote_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) AddressOf(a, ip, port);
}

void HttpConnection::get_local_ip_and_port(std::string& ip, int& port) const {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) AddressOf(a, ip, port);
}

}  // namespace rxe::exporter
