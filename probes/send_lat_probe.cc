// Sample definition (same as ib_send_lat): t[i] is stamped right before ping
// i is posted, t[n] right after the last pong arrived; sample i = t[i+1] - t[i]
// is one full round trip including the post/poll overhead perftest also
// includes. `iterations` pings give `iterations` samples (perftest's n pings
// give n-1). The stats layer halves them (one-way latency).
#include "probes/send_lat_probe.h"

#include <vector>

#include "probes/verbs_poll.h"

namespace rxe::probes {
namespace {

ibv_send_wr MakeSend(SessionCore& core, ibv_sge* sge) {
  *sge = ibv_sge{reinterpret_cast<uintptr_t>(core.SendRegion()), core.params.size, core.mr->lkey};
  ibv_send_wr wr{};
  wr.sg_list = sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED | (core.UseInline() ? IBV_SEND_INLINE : 0);
  return wr;
}

// Posts one SEND and waits for its completion (tx_depth 1, every WR signalled).
std::optional<ProbeFailure> SendOne(SessionCore& core, ibv_send_wr& wr, StopCheck& stop) {
  ibv_send_wr* bad = nullptr;
  if (int ret = ibv_post_send(core.qps[0].get(), &wr, &bad); ret != 0) {
    return PostFailure(ret, "ibv_post_send");
  }
  ibv_wc wc;
  return WaitOne(core.send_cq.get(), stop, "send", &wc);
}

// Waits for one receive and reposts it.
std::optional<ProbeFailure> ReceiveOne(SessionCore& core, StopCheck& stop, bool stop_on_done) {
  ibv_wc wc;
  if (auto f = WaitOne(core.recv_cq.get(), stop, "receive", &wc, stop_on_done)) return f;
  return core.PostReceives(0, 1);
}

}  // namespace

ProbeResult<Measurement> RunSendLatClient(SessionCore& core, Clock::time_point deadline,
                                          const std::atomic<bool>& cancel) {
  const uint32_t n = core.params.iterations;
  std::vector<Clock::time_point> t(n + 1);
  StopCheck stop(deadline, cancel);
  ibv_sge sge;
  ibv_send_wr wr = MakeSend(core, &sge);
  for (uint32_t i = 0; i < n; ++i) {
    if (i > 0) {
      if (auto f = ReceiveOne(core, stop, false)) return std::move(*f);
    }
    t[i] = Clock::now();
    if (auto f = SendOne(core, wr, stop)) return std::move(*f);
  }
  if (auto f = ReceiveOne(core, stop, false)) return std::move(*f);
  t[n] = Clock::now();
  return Measurement{LatencyMeasurement{StampDeltasSeconds(t)}};
}

std::optional<ProbeFailure> RunSendLatResponder(SessionCore& core, Clock::time_point deadline,
                                                const std::atomic<bool>& done,
                                                const std::atomic<bool>& cancel) {
  StopCheck stop(deadline, cancel, &done);
  ibv_sge sge;
  ibv_send_wr wr = MakeSend(core, &sge);
  for (uint32_t i = 0; i < core.params.iterations; ++i) {
    if (auto f = ReceiveOne(core, stop, true)) {
      if (stop.Done()) return std::nullopt;  // the client stopped early: nothing left to serve
      return f;
    }
    if (auto f = SendOne(core, wr, stop)) return f;
  }
  return std::nullopt;
}

}  // namespace rxe::probes
