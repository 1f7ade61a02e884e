// The bandwidth stream shared by write_bw and send_bw (perftest run_iter_bw
// in duration mode), client side.
//
// Measurement:
//  - the client posts for `duration` in total; the first WarmUp(duration) is
//    a warm-up whose completions are not counted (perftest -D uses duration/4
//    whole seconds as margin, i.e. none for -D 3; we keep a short one so the
//    pipeline is full when the window opens);
//  - the window opens at the end of the warm-up (t_first = start + warm-up, a
//    fixed time like perftest's alarm, not the next post: a stall across it,
//    e.g. an RC retransmission timeout, stays inside the window) and closes at
//    the last completion (t_last), after posting stopped and every outstanding
//    WR completed (drain);
//  - bytes = size x WRs whose completion was polled inside the window; while it
//    is closed, the clock is read before every CQ poll (StreamWindow), so a
//    batch polled after warm_end counts even when posting took the thread past
//    warm_end: rdma_rxe runs the requester inside ibv_post_send, and over
//    loopback on a slow CPU posting tx_depth x 1 MiB can take longer than the
//    whole duration (the window used to open after that batch: 0 bytes);
//    BW = bytes / (t_last - t_first): perftest's "BW average" (bytes / (last
//    completion - first post)) measured on a full pipeline, like its -D window;
//  - the run takes `duration` plus the drain (at most tx_depth WRs per QP).
// Flow control per QP as perftest: outstanding + post_list <= tx_depth, post
// lists of post_list chained WRs, every cq_moderation-th WR signalled (and the
// last WR of the run always), QPs served round-robin, CQ polled in batches of 16.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "probes/engine.h"
#include "probes/rdma_session_core.h"

namespace rxe::probes {

/// Warm-up at the start of a bandwidth probe: duration/10, at most 250 ms.
Clock::duration WarmUp(Clock::duration duration);

/// The measurement window of a stream: opens at warm_end; completions polled
/// after it opened are counted, over t_last - warm_end.
class StreamWindow {
 public:
  explicit StreamWindow(Clock::time_point warm_end) : warm_end_(warm_end) {}
  bool open() const { return open_; }
  /// Called with the clock before each CQ poll while closed; `completed` =
  /// completions polled so far. Opens the window once now >= warm_end.
  void MaybeOpen(Clock::time_point now, uint64_t completed);
  /// The measurement after the drain. Never opened (cannot happen for
  /// duration > 0): the whole run from `start`.
  BandwidthMeasurement Result(Clock::time_point start, Clock::time_point t_last, uint64_t completed,
                              uint64_t size) const;

 private:
  Clock::time_point warm_end_;
  bool open_ = false;
  uint64_t completed_at_open_ = 0;
};

/// The detail of a stream that reached its deadline: how long no completion came (since the last
/// one, or since the start when none came), and how many WRs completed of those posted. A stream
/// that stops completing is an RC stall: the peer stopped acknowledging, or the driver stopped
/// retransmitting (rdma_rxe retries forever at retry_cnt 7 and never reports retry-exceeded).
/// Below this since the last completion, a stream at its deadline is slow, not stalled (on a
/// slow path, 1 MiB messages complete more than a second apart).
inline constexpr Clock::duration kStallAfter = std::chrono::seconds(5);
std::string StreamStallDetail(Clock::duration since_completion, uint64_t completed, uint64_t posted);

/// Streams `opcode` (IBV_WR_RDMA_WRITE to the peer's buffer, or IBV_WR_SEND).
ProbeResult<Measurement> RunStreamClient(SessionCore& core, ibv_wr_opcode opcode,
                                         Clock::time_point deadline,
                                         const std::atomic<bool>& cancel);

}  // namespace rxe::probes
