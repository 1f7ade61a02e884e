#include "probes/control_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace rxe::probes::control {
namespace {

constexpr auto kSlice = std::chrono::milliseconds(50);

IoError Sys(int err, std::string what) { return IoError{IoErrorCode::kSystem, err, {}, std::move(what)}; }
IoError Code(IoErrorCode c, std::string what) { return IoError{c, 0, {}, std::move(what)}; }

/// Waits for `events` on fd; nullopt when ready.
std::optional<IoError> WaitFor(int fd, short events, Clock::time_point deadline,
                               const std::atomic<bool>* cancel, const char* what) {
  for (;;) {
    if (cancel != nullptr && cancel->load()) return Code(IoErrorCode::kCancelled, what);
    auto now = Clock::now();
    if (now >= deadline) return Code(IoErrorCode::kTimeout, what);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    auto wait = std::min<std::chrono::milliseconds>(kSlice, left + std::chrono::milliseconds(1));
    pollfd p{fd, events, 0};
    int rc = ::poll(&p, 1, static_cast<int>(wait.count()));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return Sys(errno, what);
    }
    if (rc > 0) return std::nullopt;  // ready, or error/hangup to be read by the caller
  }
}

/// Reads exactly n bytes. `in_frame`: bytes of this frame were read before, so
/// an EOF is a truncated message (kWire kTruncated), not a plain close.
std::optional<IoError> ReadExact(int fd, uint8_t* buf, size_t n, Clock::time_point deadline,
                                 const std::atomic<bool>* cancel, bool in_frame) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::recv(fd, buf + got, n - got, 0);
    if (r > 0) {
      got += static_cast<size_t>(r);
      continue;
    }
    if (r == 0) {
      if (!in_frame && got == 0) return Code(IoErrorCode::kClosed, "connection closed");
      WireError we{WireErrorCode::kTruncated, "connection closed mid-message"};
      return IoError{IoErrorCode::kWire, 0, we, we.detail};
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Sys(errno, "recv");
    if (auto e = WaitFor(fd, POLLIN, deadline, cancel, "recv")) return e;
  }
  return std::nullopt;
}

}  // namespace

void Fd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void PrepareSocket(int fd) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::optional<IoError> SendMessage(int fd, const Message& m, Clock::time_point deadline,
                                   const std::atomic<bool>* cancel) {
  std::vector<uint8_t> frame = Encode(m);
  size_t sent = 0;
  while (sent < frame.size()) {
    ssize_t r = ::send(fd, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
    if (r >= 0) {
      sent += static_cast<size_t>(r);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Sys(errno, "send");
    if (auto e = WaitFor(fd, POLLOUT, deadline, cancel, "send")) return e;
  }
  return std::nullopt;
}

IoResult<Message> ReceiveMessage(int fd, uint32_t max_body, Clock::time_point deadline,
                                 const std::atomic<bool>* cancel) {
  std::array<uint8_t, kHeaderBytes> hdr{};
  if (auto e = ReadExact(fd, hdr.data(), hdr.size(), deadline, cancel, /*in_frame=*/false)) return *e;
  auto h = DecodeHeader(hdr, max_body);
  if (auto* we = std::get_if<WireError>(&h)) return IoError{IoErrorCode::kWire, 0, *we, we->detail};
  const Header& header = std::get<Header>(h);
  std::vector<uint8_t> body(header.length);  // bounded by max_body above
  if (!body.empty()) {
    if (auto e = ReadExact(fd, body.data(), body.size(), deadline, cancel, /*in_frame=*/true)) return *e;
  }
  auto m = DecodeBody(header.type, body);
  if (auto* we = std::get_if<WireError>(&m)) return IoError{IoErrorCode::kWire, 0, *we, we->detail};
  return std::get<Message>(std::move(m));
}

IoResult<Fd> ConnectTcp(const std::string& host, uint16_t port, Clock::time_point deadline,
                        const std::atomic<bool>* cancel) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
  if (rc != 0 || res == nullptr) {
    return Code(IoErrorCode::kResolve, "resolve " + host + ": " + ::gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owner(res, &::freeaddrinfo);
  IoError last = Code(IoErrorCode::kResolve, "no address for " + host);
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    Fd fd(::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol));
    if (!fd.valid()) {
      last = Sys(errno, "socket");
      continue;
    }
    PrepareSocket(fd.get());
    if (::connect(fd.get(), ai->ai_addr, ai->ai_addrlen) == 0) return fd;
    if (errno != EINPROGRESS) {
      last = Sys(errno, "connect");
      continue;
    }
    if (auto e = WaitFor(fd.get(), POLLOUT, deadline, cancel, "connect")) return *e;
    int err = 0;
    socklen_t len = sizeof err;
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err == 0) return fd;
    last = Sys(err, "connect");
  }
  return last;
}

std::optional<in_addr> LocalIpv4(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return std::nullopt;
  if (ss.ss_family == AF_INET) return reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr;
  if (ss.ss_family == AF_INET6) {
    const auto* s6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
      in_addr a{};
      std::memcpy(&a, s6->sin6_addr.s6_addr + 12, 4);
      return a;
    }
  }
  return std::nullopt;
}

std::string AddressToString(const sockaddr_storage& ss) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (ss.ss_family == AF_INET) {
    const auto* s = reinterpret_cast<const sockaddr_in*>(&ss);
    ::inet_ntop(AF_INET, &s->sin_addr, buf, sizeof buf);
    return std::string(buf) + ":" + std::to_string(ntohs(s->sin_port));
  }
  if (ss.ss_family == AF_INET6) {
    const auto* s = reinterpret_cast<const sockaddr_in6*>(&ss);
    ::inet_ntop(AF_INET6, &s->sin6_addr, buf, sizeof buf);
    return "[" + std::string(buf) + "]:" + std::to_string(ntohs(s->sin6_port));
  }
  return "unknown";
}

std::string IoErrorToString(const IoError& e) {
  switch (e.code) {
    case IoErrorCode::kTimeout: return e.detail + ": timed out";
    case IoErrorCode::kClosed: return e.detail;
    case IoErrorCode::kCancelled: return e.detail + ": cancelled";
    case IoErrorCode::kSystem: return e.detail + ": " + std::strerror(e.sys_errno);
    case IoErrorCode::kWire:
      return "malformed message (" + std::string(WireErrorName(e.wire.code)) + "): " + e.wire.detail;
    case IoErrorCode::kResolve: return e.detail;
  }
  return e.detail;
}

}  // namespace rxe::probes::control
