// Errors as values: every fallible call in the daemon returns Result<T> (or
// Status), with errno captured at the point of failure, never read later.
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace rxe {

/// Canonical error classes (a subset of absl::StatusCode that we use).
enum class ErrorCode {
  kUnknown,
  kInvalidArgument,   // bad input from config, flags or a peer message
  kNotFound,          // device/file/attribute absent
  kNoData,            // source exists but has nothing to report (not a failure)
  kPermissionDenied,
  kUnavailable,       // kernel feature/protocol not available (e.g. no NETLINK_RDMA)
  kDeadlineExceeded,
  kAlreadyExists,
  kResourceExhausted,
  kFailedPrecondition,
  kInternal,
};

const char* ErrorCodeName(ErrorCode code);

/// An error: a class, the errno captured where it happened (0 if none) and a
/// human message with context ("modify QP to RTR for peer b: Invalid argument").
struct Error {
  ErrorCode code = ErrorCode::kUnknown;
  int sys_errno = 0;
  std::string message;

  /// Builds an error from an errno value, mapping it to a code and appending
  /// strerror(err) to `context`.
  static Error FromErrno(int err, std::string context);
  static Error Make(ErrorCode code, std::string message) {
    return Error{code, 0, std::move(message)};
  }
  /// "context: message" (keeps code and errno).
  Error Wrap(const std::string& context) const {
    return Error{code, sys_errno, context + ": " + message};
  }
};

/// Maps an errno value to an ErrorCode.
ErrorCode ErrnoToCode(int err);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}      // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Result<void>.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  static Status Ok() { return Status(); }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace rxe

/// Propagates an error from an expression returning Status.
#define RXE_RETURN_IF_ERROR(expr)                  \
  do {                                             \
    auto rxe_status_ = (expr);                     \
    if (!rxe_status_.ok()) return rxe_status_.error(); \
  } while (0)
