#include "probes/verbs_stream.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "probes/verbs_poll.h"

namespace rxe::probes {
namespace {

constexpr int kQpShift = 48;
constexpr uint64_t kCountMask = (uint64_t{1} << kQpShift) - 1;
constexpr uint32_t kEmptyPollsPerClockRead = 64;

struct QpState {
  uint64_t posted = 0;
  uint64_t completed = 0;     // WRs known complete (a signalled WC covers all before it)
  uint32_t since_signal = 0;  // unsignalled WRs posted since the last signalled one
  bool final_posted = false;
};

}  // namespace

Clock::duration WarmUp(Clock::duration duration) {
  if (duration <= Clock::duration::zero()) return Clock::duration::zero();
  return std::min<Clock::duration>(duration / 10, std::chrono::milliseconds(250));
}

void StreamWindow::MaybeOpen(Clock::time_point now, uint64_t completed) {
  if (open_ || now < warm_end_) return;
  open_ = true;
  completed_at_open_ = completed;
}

std::string StreamStallDetail(Clock::duration since_completion, uint64_t completed,
                              uint64_t posted) {
  const double secs = std::chrono::duration<double>(since_completion).count();
  const auto c = static_cast<unsigned long long>(completed);
  const auto p = static_cast<unsigned long long>(posted);
  char buf[192];
  if (since_completion < kStallAfter) {
    std::snprintf(buf, sizeof buf,
                  "deadline exceeded in the data phase, still completing: %llu of %llu WRs completed "
                  "(the duration and the drain took longer than the timeout)",
                  c, p);
  } else {
    std::snprintf(buf, sizeof buf,
                  "deadline exceeded in the data phase: no completion for %.1f s, %llu of %llu WRs "
                  "completed (the RC stream stalled)",
                  secs, c, p);
  }
  return buf;
}

BandwidthMeasurement StreamWindow::Result(Clock::time_point start, Clock::time_point t_last,
                                          uint64_t completed, uint64_t size) const {
  const Clock::time_point t_first = open_ ? warm_end_ : start;
  BandwidthMeasurement m;
  m.messages = completed - (open_ ? completed_at_open_ : 0);
  m.bytes = m.messages * size;
  m.elapsed = t_last > t_first ? t_last - t_first : Clock::duration::zero();
  return m;
}

ProbeResult<Measurement> RunStreamClient(SessionCore& core, ibv_wr_opcode opcode,
                                         Clock::time_point deadline,
                                         const std::atomic<bool>& cancel) {
  const SessionParams& p = core.params;
  const size_t nq = core.qps.size();
  const uint32_t post_list = p.post_list;
  const uint32_t depth = core.sq_depth;
  const unsigned base_flags = core.UseInline() ? IBV_SEND_INLINE : 0;

  std::vector<ibv_sge> sges(post_list);
  std::vector<ibv_send_wr> wrs(post_list);
  for (uint32_t i = 0; i < post_list; ++i) {
    sges[i] = ibv_sge{reinterpret_cast<uintptr_t>(core.SendRegion()), p.size, core.mr->lkey};
    wrs[i] = ibv_send_wr{};
    wrs[i].sg_list = &sges[i];
    wrs[i].num_sge = 1;
    wrs[i].opcode = opcode;
    wrs[i].next = i + 1 < post_list ? &wrs[i + 1] : nullptr;
    if (opcode == IBV_WR_RDMA_WRITE) {
      wrs[i].wr.rdma.remote_addr = core.remote.addr;
      wrs[i].wr.rdma.rkey = core.remote.rkey;
    }
  }

  std::vector<QpState> st(nq);
  StopCheck stop(deadline, cancel);
  const Clock::time_point start = Clock::now();
  // The window opens at warm_end itself (a fixed time, like perftest's
  // alarm), whether or not anything was posted or completed then: a stall
  // across warm_end (e.g. an RC retransmission timeout) stays in the window.
  StreamWindow window(start + WarmUp(p.duration));
  const Clock::time_point stop_at = start + p.duration;
  Clock::time_point now = start;
  Clock::time_point t_last{};
  bool stopping = false;
  uint64_t total_completed = 0;
  uint32_t empty_polls = 0;
  ibv_wc wc[kPollBatch];

  for (;;) {
    for (size_t q = 0; q < nq; ++q) {
      QpState& s = st[q];
      // After the stop, a QP whose last WR was unsignalled gets one final
      // post list ending in a signalled WR, so the drain can see it complete.
      if (stopping && (s.since_signal == 0 || s.final_posted)) continue;
      while (s.posted - s.completed + post_list <= depth) {
        for (uint32_t i = 0; i < post_list; ++i) {
          ++s.posted;
          ++s.since_signal;
          const bool sig = s.since_signal >= p.cq_moderation || (stopping && i + 1 == post_list);
          if (sig) s.since_signal = 0;
          wrs[i].send_flags = base_flags | (sig ? IBV_SEND_SIGNALED : 0);
          wrs[i].wr_id = (uint64_t{q} << kQpShift) | s.posted;
        }
        ibv_send_wr* bad = nullptr;
        if (int ret = ibv_post_send(core.qps[q].get(), wrs.data(), &bad); ret != 0) {
          return PostFailure(ret, "ibv_post_send");
        }
        if (stopping) {
          s.final_posted = true;
          break;
        }
      }
    }

    // Before the window opens, read the clock before every poll: the posts
    // above may have run past warm_end (rxe runs the requester inline), and
    // what this poll returns must then count.
    if (!window.open()) {
      now = Clock::now();
      window.MaybeOpen(now, total_completed);
    }
    const int n = ibv_poll_cq(core.send_cq.get(), kPollBatch, wc);
    if (n < 0) return PollFailure(n, "send");
    for (int i = 0; i < n; ++i) {
      if (wc[i].status != IBV_WC_SUCCESS) return WcFailure(wc[i], "send");
      QpState& s = st[wc[i].wr_id >> kQpShift];
      const uint64_t upto = wc[i].wr_id & kCountMask;
      if (upto > s.completed) {
        total_completed += upto - s.completed;
        s.completed = upto;
      }
    }
    // The clock is read after every productive poll (it stamps the last
    // completion) and every kEmptyPollsPerClockRead empty polls.
    if (n > 0 || ++empty_polls >= kEmptyPollsPerClockRead) {
      now = Clock::now();
      if (n > 0) t_last = now;
      empty_polls = 0;
      if (auto f = stop.CheckAt(now)) {
        if (!cancel.load(std::memory_order_relaxed)) {
          uint64_t posted = 0;
          for (const QpState& s : st) posted += s.posted;
          const Clock::time_point last = t_last == Clock::time_point{} ? start : t_last;
          f->detail = StreamStallDetail(now - last, total_completed, posted);
        }
        return std::move(*f);
      }
      if (now >= stop_at) stopping = true;
    } else if (cancel.load(std::memory_order_relaxed)) {
      return StopCheck::Cancelled();
    }
    if (stopping) {
      bool drained = true;
      for (const QpState& s : st) drained = drained && s.completed == s.posted;
      if (drained) break;
    }
  }

  return Measurement{window.Result(start, t_last, total_completed, p.size)};
}

}  // namespace rxe::probes
