// RC RDMA WRITE bandwidth stream (perftest ib_write_bw). The responder is passive:
// it only keeps its buffer registered until the client is done.
#pragma once

#include <atomic>
#include <optional>

#include "probes/engine.h"
#include "probes/rdma_session_core.h"

namespace rxe::probes {

ProbeResult<Measurement> RunWriteBwClient(SessionCore& core, Clock::time_point deadline,
                                          const std::atomic<bool>& cancel);
std::optional<ProbeFailure> RunWriteBwResponder(SessionCore& core, Clock::time_point deadline,
                                                const std::atomic<bool>& done,
                                                const std::atomic<bool>& cancel);

}  // namespace rxe::probes
