// Why a probe failed: a fixed, low-cardinality set used as the `reason`
// label of rxe_probe_failures_total. Every failure path maps to one of them.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace rxe::probes {

enum class FailureReason {
  kConnectRefused,      // TCP control connection refused (responder not running)
  kConnectTimeout,      // TCP control connection timed out (host down, firewall)
  kRejected,            // responder refused the session (not allowed, busy, bad params)
  kAuthFailed,          // pre-shared-key challenge/response failed (either side)
  kNoRoute,             // no local IP/route to the peer
  kNoGid,               // no RoCE v2 GID for the local IP (wrong gid_index, IP not on an rxe netdev)
  kMtuAboveActive,      // requested MTU is higher than the port's active MTU
  kQpTransitionFailed,  // ibv_modify_qp INIT/RTR/RTS failed
  kWcError,             // a work completion with status != IBV_WC_SUCCESS (detail: ibv_wc_status_str)
  kTimeout,             // the probe did not finish before its deadline
  kNoDevice,            // no (matching/active) RDMA device
  kProtocolError,       // malformed/unexpected control message
  kInternal,            // anything else (resource allocation, ...)
};

std::string_view FailureReasonName(FailureReason r);  // "connect_refused", ...

/// A probe failure: the reason plus human detail (and the WC status name for kWcError).
struct ProbeFailure {
  FailureReason reason = FailureReason::kInternal;
  std::string detail;
  std::string wc_status;  // e.g. "IBV_WC_RETRY_EXC_ERR" / ibv_wc_status_str() text, for kWcError
};

}  // namespace rxe::probes
