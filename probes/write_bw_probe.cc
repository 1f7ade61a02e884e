#include "probes/write_bw_probe.h"

#include <thread>

#include "probes/verbs_poll.h"
#include "probes/verbs_stream.h"

namespace rxe::probes {

ProbeResult<Measurement> RunWriteBwClient(SessionCore& core, Clock::time_point deadline,
                                          const std::atomic<bool>& cancel) {
  return RunStreamClient(core, IBV_WR_RDMA_WRITE, deadline, cancel);
}

std::optional<ProbeFailure> RunWriteBwResponder(SessionCore& /*core*/, Clock::time_point deadline,
                                                const std::atomic<bool>& done,
                                                const std::atomic<bool>& cancel) {
  // RDMA WRITE needs no CPU on the target. Sleep instead of spinning so the
  // client and rxe's kernel work keep the CPUs (perftest's server blocks on
  // its TCP socket the same way).
  StopCheck stop(deadline, cancel, &done);
  for (;;) {
    if (stop.Done()) return std::nullopt;
    if (auto f = stop.CheckAt(Clock::now())) return f;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace rxe::probes
