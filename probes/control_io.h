// Socket I/O for the control protocol: an owning fd, deadline-bounded framed
// send/receive (the header is checked, including the size cap, before the
// body is read), TCP connect with a deadline, and address helpers. Every wait
// polls in short slices so a cancel flag is honoured within ~50 ms.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <optional>
#include <string>
#include <variant>

#include "probes/control_protocol.h"
#include "probes/engine.h"

namespace rxe::probes::control {

/// Owns a file descriptor (closed on destruction). Move-only.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(Fd&& o) noexcept : fd_(o.Release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = o.Release();
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void Reset();

 private:
  int fd_ = -1;
};

enum class IoErrorCode {
  kTimeout,    // deadline passed
  kClosed,     // orderly EOF from the peer
  kCancelled,  // the cancel flag was set
  kSystem,     // a syscall failed (sys_errno set)
  kWire,       // the bytes were not a valid message (wire set)
  kResolve,    // host name resolution failed (connect only)
};

struct IoError {
  IoErrorCode code = IoErrorCode::kSystem;
  int sys_errno = 0;
  WireError wire;
  std::string detail;
};

template <typename T>
using IoResult = std::variant<T, IoError>;

/// Writes one whole frame before `deadline`.
std::optional<IoError> SendMessage(int fd, const Message& m, Clock::time_point deadline,
                                   const std::atomic<bool>* cancel = nullptr);
/// Reads one frame: header first (magic/version/type/length <= max_body
/// checked before reading the body), then exactly `length` body bytes.
/// EOF before the first byte is kClosed; EOF inside a frame is kWire with
/// WireErrorCode::kTruncated (a malformed message, counted by the responder).
IoResult<Message> ReceiveMessage(int fd, uint32_t max_body, Clock::time_point deadline,
                                 const std::atomic<bool>* cancel = nullptr);

/// Connects to host:port (IP literal or name) before `deadline`; the socket
/// is non-blocking with TCP_NODELAY. kSystem errors carry the connect errno
/// (ECONNREFUSED, EHOSTUNREACH, ...); a deadline gives kTimeout.
IoResult<Fd> ConnectTcp(const std::string& host, uint16_t port, Clock::time_point deadline,
                        const std::atomic<bool>* cancel = nullptr);

/// Makes `fd` non-blocking and close-on-exec, with TCP_NODELAY (best effort).
void PrepareSocket(int fd);

/// The local IPv4 address of a connected socket (IPv4-mapped IPv6 is
/// converted); nullopt for a real IPv6 address.
std::optional<in_addr> LocalIpv4(int fd);
/// "a.b.c.d:port" / "[v6]:port".
std::string AddressToString(const sockaddr_storage& ss);
std::string IoErrorToString(const IoError& e);

}  // namespace rxe::probes::control
