#include "probes/send_bw_probe.h"

#include <vector>

#include "probes/verbs_poll.h"
#include "probes/verbs_stream.h"

namespace rxe::probes {

ProbeResult<Measurement> RunSendBwClient(SessionCore& core, Clock::time_point deadline,
                                         const std::atomic<bool>& cancel) {
  return RunStreamClient(core, IBV_WR_SEND, deadline, cancel);
}

std::optional<ProbeFailure> RunSendBwResponder(SessionCore& core, Clock::time_point deadline,
                                               const std::atomic<bool>& done,
                                               const std::atomic<bool>& cancel) {
  // rx_depth (>= 2 x tx_depth, >= 512) receives per QP were posted by
  // Connect; each completed one is reposted right away (in one chained call
  // per QP and poll batch), so the client never meets an empty receive queue
  // (RNR) at the defaults.
  StopCheck stop(deadline, cancel, &done);
  std::vector<uint32_t> consumed(core.qps.size(), 0);
  ibv_wc wc[kPollBatch];
  for (;;) {
    const int n = ibv_poll_cq(core.recv_cq.get(), kPollBatch, wc);
    if (n < 0) return PollFailure(n, "receive");
    if (n == 0) {
      if (stop.Done()) return std::nullopt;
      if (auto f = stop.Check()) return f;
      continue;
    }
    for (int i = 0; i < n; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) return WcFailure(wc[i], "receive");
      if (wc[i].wr_id < consumed.size()) ++consumed[wc[i].wr_id];
    }
    for (size_t q = 0; q < consumed.size(); ++q) {
      if (consumed[q] == 0) continue;
      if (auto f = core.PostReceives(q, consumed[q])) return f;
      consumed[q] = 0;
    }
  }
}

}  // namespace rxe::probes
