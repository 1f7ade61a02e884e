// Sample definition (same as ib_send_lat): t[i] is stamped right before ping
// i is posted, t[n] right after the last pong arrived; sample i = t[i+1] - t[i]
// is one full round trip including the post/poll overhead perftest also
// includes. `iterations` pings give `iterations` samples (perftest's n pings
// give n-1). The stats layer halves them (one-way latency).
// As ib_send_lat (default -Q 100), both sides signal only every
// kSendLatSignalEvery-th SEND and the last one, and poll the send CQ only for
// those: waiting for every SEND's ACK completion would add a CQE and a poll
// to each round trip that perftest does not pay.
// With use_event (ib_send_lat -e) both sides sleep on the session's completion
// channel instead of busy-polling (probes/verbs_event.h).
#include "probes/send_lat_probe.h"

#include <vector>

#include "probes/rdma_session_params.h"
#include "probes/verbs_event.h"
#include "probes/verbs_poll.h"

namespace rxe::probes {
namespace {

// One completion of `cq`: busy-polled, or with use_event slept for on the session's channel.
std::optional<ProbeFailure> Wait(SessionCore& core, ibv_cq* cq, StopCheck& stop, const char* what,
                                 ibv_wc* wc, bool stop_on_done) {
  if (core.events.channel != nullptr) {
    return WaitOneEvent(cq, core.events, stop, what, wc, stop_on_done);
  }
  return WaitOne(cq, stop, what, wc, stop_on_done);
}

ibv_send_wr MakeSend(SessionCore& core, ibv_sge* sge) {
  *sge = ibv_sge{reinterpret_cast<uintptr_t>(core.SendRegion()), core.params.size, core.mr->lkey};
  ibv_send_wr wr{};
  wr.sg_list = sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = core.UseInline() ? IBV_SEND_INLINE : 0;
  return wr;
}

// Posts SEND number `index` (0-based) of `total`; signalled, and its
// completion awaited, only every kSendLatSignalEvery-th and for the last.
// The responder also stops waiting when the client says DONE (`stop_on_done`).
std::optional<ProbeFailure> SendOne(SessionCore& core, ibv_send_wr& wr, uint32_t index,
                                    uint32_t total, StopCheck& stop, bool stop_on_done = false) {
  const bool signalled = (index + 1) % kSendLatSignalEvery == 0 || index + 1 == total;
  wr.send_flags = signalled ? (wr.send_flags | IBV_SEND_SIGNALED)
                            : (wr.send_flags & ~static_cast<unsigned>(IBV_SEND_SIGNALED));
  ibv_send_wr* bad = nullptr;
  if (int ret = ibv_post_send(core.qps[0].get(), &wr, &bad); ret != 0) {
    return PostFailure(ret, "ibv_post_send");
  }
  if (!signalled) return std::nullopt;
  ibv_wc wc;
  return Wait(core, core.send_cq.get(), stop, "send", &wc, stop_on_done);
}

// Waits for one receive and reposts it.
std::optional<ProbeFailure> ReceiveOne(SessionCore& core, StopCheck& stop, bool stop_on_done) {
  ibv_wc wc;
  if (auto f = Wait(core, core.recv_cq.get(), stop, "receive", &wc, stop_on_done)) return f;
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
    if (auto f = SendOne(core, wr, i, n, stop)) return std::move(*f);
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
  const uint32_t n = core.params.iterations;
  for (uint32_t i = 0; i < n; ++i) {
    if (auto f = ReceiveOne(core, stop, true)) {
      if (stop.Done()) return std::nullopt;  // the client stopped early: nothing left to serve
      return f;
    }
    if (auto f = SendOne(core, wr, i, n, stop, true)) {
      if (stop.Done()) return std::nullopt;  // the client has all it needs
      return f;
    }
  }
  return std::nullopt;
}

}  // namespace rxe::probes
