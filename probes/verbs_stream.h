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
//  - bytes = size x WRs whose completion was polled inside the window;
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

#include "probes/engine.h"
#include "probes/rdma_session_core.h"

namespace rxe::probes {

/// Warm-up at the start of a bandwidth probe: duration/10, at most 250 ms.
Clock::duration WarmUp(Clock::duration duration);

/// Streams `opcode` (IBV_WR_RDMA_WRITE to the peer's buffer, or IBV_WR_SEND).
ProbeResult<Measurement> RunStreamClient(SessionCore& core, ibv_wr_opcode opcode,
                                         Clock::time_point deadline,
                                         const std::atomic<bool>& cancel);

}  // namespace rxe::probes
