// RC RDMA WRITE ping-pong latency (perftest ib_write_lat): each side writes
// its iteration counter into the last byte of the peer's buffer and busy-polls
// the last byte of its own.
#pragma once

#include <atomic>
#include <optional>

#include "probes/engine.h"
#include "probes/rdma_session_core.h"

namespace rxe::probes {

ProbeResult<Measurement> RunWriteLatClient(SessionCore& core, Clock::time_point deadline,
                                           const std::atomic<bool>& cancel);
std::optional<ProbeFailure> RunWriteLatResponder(SessionCore& core, Clock::time_point deadline,
                                                 const std::atomic<bool>& done,
                                                 const std::atomic<bool>& cancel);

}  // namespace rxe::probes
