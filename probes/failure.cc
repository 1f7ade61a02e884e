#include "probes/failure.h"

namespace rxe::probes {

std::string_view FailureReasonName(FailureReason r) {
  switch (r) {
    case FailureReason::kConnectRefused: return "connect_refused";
    case FailureReason::kConnectTimeout: return "connect_timeout";
    case FailureReason::kRejected: return "rejected";
    case FailureReason::kAuthFailed: return "auth_failed";
    case FailureReason::kNoRoute: return "no_route";
    case FailureReason::kNoGid: return "no_gid";
    case FailureReason::kMtuAboveActive: return "mtu_above_active";
    case FailureReason::kQpTransitionFailed: return "qp_transition_failed";
    case FailureReason::kWcError: return "wc_error";
    case FailureReason::kTimeout: return "timeout";
    case FailureReason::kNoDevice: return "no_device";
    case FailureReason::kProtocolError: return "protocol_error";
    case FailureReason::kInternal: return "internal";
  }
  return "internal";
}

}  // namespace rxe::probes
