// Event-mode completion waits (perftest -e, rdma-core's rc_pingpong --events): a session's
// CQs are created on one completion channel and a waiter sleeps in poll(2) on the channel's fd
// instead of spinning in ibv_poll_cq. On Soft-RoCE the work that produces a completion runs
// in the kernel on the same CPUs, so a spinning waiter can delay the very completion it waits
// for; sleeping also costs no CPU between packets.
#pragma once

#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>
#include <optional>

#include "probes/failure.h"
#include "probes/verbs_poll.h"

namespace rxe::probes {

/// Longest single sleep on the channel: cancel, the deadline and the responder's `done` are
/// checked at least this often while nothing completes.
inline constexpr std::chrono::milliseconds kEventSlice{10};

/// The completion channel of a session's CQs and the events read from it. Every event is
/// acked right after it is read, so none is outstanding when the CQs are destroyed
/// (ibv_destroy_cq would wait for it forever).
struct CqEvents {
  ibv_comp_channel* channel = nullptr;  // owned by the session (verbs::CompChannelPtr)
  uint64_t events = 0;                  // CQ events read and acked
};

/// WaitOne (verbs_poll.h) in event mode, in rc_pingpong's order: poll `cq`; if it is empty,
/// arm it (ibv_req_notify_cq) and poll again (a completion that arrived before the arm raises
/// no event), then sleep in poll(2) on the channel for at most kEventSlice and the time to the
/// deadline, read the event (ibv_get_cq_event; it may be for another CQ of the channel),
/// ack it and poll again. Same failures as WaitOne, plus kInternal for a failed
/// ibv_req_notify_cq, poll(2) or ibv_get_cq_event (with strerror of its errno).
std::optional<ProbeFailure> WaitOneEvent(ibv_cq* cq, CqEvents& ev, StopCheck& stop,
                                         const char* what, ibv_wc* wc, bool stop_on_done = false);

}  // namespace rxe::probes
