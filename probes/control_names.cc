// Names and small predicates of the control protocol (logs, metrics labels).
#include "probes/control_protocol.h"

namespace rxe::probes::control {

std::string_view RejectReasonName(RejectReason r) {
  switch (r) {
    case RejectReason::kNotAllowed: return "not_allowed";
    case RejectReason::kAuthFailed: return "auth_failed";
    case RejectReason::kBusy: return "busy";
    case RejectReason::kMalformed: return "malformed";
    case RejectReason::kOversized: return "oversized";
    case RejectReason::kBadVersion: return "bad_version";
    case RejectReason::kBadParams: return "bad_params";
    case RejectReason::kSetupFailed: return "setup_failed";
    case RejectReason::kTimeout: return "timeout";
  }
  return "unknown";
}

MessageType TypeOf(const Message& m) {
  // The variant's alternatives are in MessageType order, starting at 1.
  return static_cast<MessageType>(m.index() + 1);
}

std::string_view MessageTypeName(MessageType t) {
  switch (t) {
    case MessageType::kHello: return "HELLO";
    case MessageType::kChallenge: return "CHALLENGE";
    case MessageType::kAuth: return "AUTH";
    case MessageType::kAccept: return "ACCEPT";
    case MessageType::kReject: return "REJECT";
    case MessageType::kEndpoint: return "ENDPOINT";
    case MessageType::kReady: return "READY";
    case MessageType::kDone: return "DONE";
    case MessageType::kBye: return "BYE";
    case MessageType::kUdAddress: return "UD_ADDRESS";
  }
  return "UNKNOWN";
}

std::string_view WireErrorName(WireErrorCode c) {
  switch (c) {
    case WireErrorCode::kTruncated: return "truncated";
    case WireErrorCode::kOversized: return "oversized";
    case WireErrorCode::kBadMagic: return "bad_magic";
    case WireErrorCode::kBadVersion: return "bad_version";
    case WireErrorCode::kUnknownType: return "unknown_type";
    case WireErrorCode::kReservedNonZero: return "reserved_nonzero";
    case WireErrorCode::kOutOfRange: return "out_of_range";
    case WireErrorCode::kTrailingBytes: return "trailing_bytes";
  }
  return "unknown";
}

bool IsIbMtu(uint32_t mtu) {
  return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

}  // namespace rxe::probes::control
