// RC SEND/RECV ping-pong latency (perftest ib_send_lat).
#pragma once

#include <atomic>
#include <optional>

#include "probes/engine.h"
#include "probes/rdma_session_core.h"

namespace rxe::probes {

ProbeResult<Measurement> RunSendLatClient(SessionCore& core, Clock::time_point deadline,
                                          const std::atomic<bool>& cancel);
std::optional<ProbeFailure> RunSendLatResponder(SessionCore& core, Clock::time_point deadline,
                                                const std::atomic<bool>& done,
                                                const std::atomic<bool>& cancel);

}  // namespace rxe::probes
