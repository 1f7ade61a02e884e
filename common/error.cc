#include "common/result.h"

#include <cstring>

namespace rxe {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUnknown: return "unknown";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kNoData: return "no_data";
    case ErrorCode::kPermissionDenied: return "permission_denied";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kDeadlineExceeded: return "deadline_exceeded";
    case ErrorCode::kAlreadyExists: return "already_exists";
    case ErrorCode::kResourceExhausted: return "resource_exhausted";
    case ErrorCode::kFailedPrecondition: return "failed_precondition";
    case ErrorCode::kInternal: return "internal";
  }
  return "unknown";
}

ErrorCode ErrnoToCode(int err) {
  switch (err) {
    case 0: return ErrorCode::kUnknown;
    case EINVAL: case ERANGE: case E2BIG: case EBADMSG: case EPROTO:
      return ErrorCode::kInvalidArgument;
    case ENOENT: case ENODEV: case ENXIO: case ENODATA:
      return ErrorCode::kNotFound;
    case EACCES: case EPERM:
      return ErrorCode::kPermissionDenied;
    case EPROTONOSUPPORT: case EOPNOTSUPP: case EAFNOSUPPORT: case ECONNREFUSED:
    case EHOSTUNREACH: case ENETUNREACH: case EAGAIN:
      return ErrorCode::kUnavailable;
    case ETIMEDOUT:
      return ErrorCode::kDeadlineExceeded;
    case EEXIST: case EADDRINUSE:
      return ErrorCode::kAlreadyExists;
    case ENOMEM: case ENOSPC: case EMFILE: case ENFILE: case ENOBUFS:
      return ErrorCode::kResourceExhausted;
    case EBUSY:
      return ErrorCode::kFailedPrecondition;
    default:
      return ErrorCode::kUnknown;
  }
}

Error Error::FromErrno(int err, std::string context) {
  Error e;
  e.code = ErrnoToCode(err);
  e.sys_errno = err;
  e.message = std::move(context);
  e.message += ": ";
  e.message += std::strerror(err);
  return e;
}

}  // namespace rxe
