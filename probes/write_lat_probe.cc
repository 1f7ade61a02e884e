// Sample definition (same as ib_write_lat): t[i] is stamped right before ping
// i (an RDMA WRITE of `size` bytes whose last byte is the counter i+1) is
// posted, t[n] right after the last pong's counter appeared in our buffer;
// sample i = t[i+1] - t[i], one full round trip. The stats layer halves them.
#include "probes/write_lat_probe.h"

#include <atomic>
#include <vector>

#include "probes/verbs_poll.h"

namespace rxe::probes {
namespace {

ibv_send_wr MakeWrite(SessionCore& core, ibv_sge* sge) {
  *sge = ibv_sge{reinterpret_cast<uintptr_t>(core.SendRegion()), core.params.size, core.mr->lkey};
  ibv_send_wr wr{};
  wr.sg_list = sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED | (core.UseInline() ? IBV_SEND_INLINE : 0);
  wr.wr.rdma.remote_addr = core.remote.addr;
  wr.wr.rdma.rkey = core.remote.rkey;
  return wr;
}

// Writes counter `value` into the peer's last byte and waits for the WRITE's
// completion (tx_depth 1, every WR signalled, as perftest). The responder also
// stops waiting when the client says DONE (`stop_on_done`): the client may tear
// its QP down before it ACKs the last pong.
std::optional<ProbeFailure> WriteOne(SessionCore& core, ibv_send_wr& wr, uint8_t value,
                                     StopCheck& stop, bool stop_on_done = false) {
  core.SendRegion()[core.params.size - 1] = value;
  ibv_send_wr* bad = nullptr;
  if (int ret = ibv_post_send(core.qps[0].get(), &wr, &bad); ret != 0) {
    return PostFailure(ret, "ibv_post_send");
  }
  ibv_wc wc;
  return WaitOne(core.send_cq.get(), stop, "send", &wc, stop_on_done);
}

// Busy-polls the last byte of our buffer (written by the peer's RDMA WRITE)
// until it equals `value`. An acquire load per poll (a plain load on x86)
// rather than a volatile poll plus std::atomic_thread_fence, which
// ThreadSanitizer does not support (GCC: -Werror=tsan).
std::optional<ProbeFailure> AwaitCounter(SessionCore& core, uint8_t value, StopCheck& stop,
                                         bool stop_on_done) {
  std::atomic_ref<uint8_t> cell(core.RecvRegion()[core.params.size - 1]);
  while (cell.load(std::memory_order_acquire) != value) {
    if (auto f = stop.Check()) return f;
    if (stop_on_done && stop.Done()) {
      return ProbeFailure{FailureReason::kInternal, "peer finished early", ""};
    }
  }
  return std::nullopt;
}

}  // namespace

ProbeResult<Measurement> RunWriteLatClient(SessionCore& core, Clock::time_point deadline,
                                           const std::atomic<bool>& cancel) {
  const uint32_t n = core.params.iterations;
  std::vector<Clock::time_point> t(n + 1);
  StopCheck stop(deadline, cancel);
  ibv_sge sge;
  ibv_send_wr wr = MakeWrite(core, &sge);
  for (uint32_t i = 0; i < n; ++i) {
    if (i > 0) {
      if (auto f = AwaitCounter(core, static_cast<uint8_t>(i), stop, false)) return std::move(*f);
    }
    t[i] = Clock::now();
    if (auto f = WriteOne(core, wr, static_cast<uint8_t>(i + 1), stop)) return std::move(*f);
  }
  if (auto f = AwaitCounter(core, static_cast<uint8_t>(n), stop, false)) return std::move(*f);
  t[n] = Clock::now();
  return Measurement{LatencyMeasurement{StampDeltasSeconds(t)}};
}

std::optional<ProbeFailure> RunWriteLatResponder(SessionCore& core, Clock::time_point deadline,
                                                 const std::atomic<bool>& done,
                                                 const std::atomic<bool>& cancel) {
  StopCheck stop(deadline, cancel, &done);
  ibv_sge sge;
  ibv_send_wr wr = MakeWrite(core, &sge);
  for (uint32_t i = 1; i <= core.params.iterations; ++i) {
    const auto value = static_cast<uint8_t>(i);
    if (auto f = AwaitCounter(core, value, stop, true)) {
      if (stop.Done()) return std::nullopt;  // the client stopped early
      return f;
    }
    if (auto f = WriteOne(core, wr, value, stop, true)) {
      if (stop.Done()) return std::nullopt;  // the client has all it needs
      return f;
    }
  }
  return std::nullopt;
}

}  // namespace rxe::probes
