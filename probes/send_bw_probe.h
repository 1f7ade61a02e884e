// RC SEND/RECV bandwidth stream (perftest ib_send_bw). The responder keeps
// rx_depth receives posted per QP and reposts each one as it completes.
#pragma once

#include <atomic>
#include <optional>

#include "probes/engine.h"
#include "probes/rdma_session_core.h"

namespace rxe::probes {

ProbeResult<Measurement> RunSendBwClient(SessionCore& core, Clock::time_point deadline,
                                         const std::atomic<bool>& cancel);
std::optional<ProbeFailure> RunSendBwResponder(SessionCore& core, Clock::time_point deadline,
                                               const std::atomic<bool>& done,
                                               const std::atomic<bool>& cancel);

}  // namespace rxe::probes
