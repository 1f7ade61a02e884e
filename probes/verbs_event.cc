#include "probes/verbs_event.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace rxe::probes {
namespace {

ProbeFailure CallFailure(const char* call, int err) {
  return ProbeFailure{FailureReason::kInternal,
                      std::string(call) + " failed: " + std::strerror(err), ""};
}

// Milliseconds to sleep: up to the deadline (rounded up, so an early wake-up does not spin),
// at most kEventSlice.
int SleepMs(Clock::time_point now, Clock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, kEventSlice.count()));
}

}  // namespace

std::optional<ProbeFailure> WaitOneEvent(ibv_cq* cq, CqEvents& ev, StopCheck& stop,
                                         const char* what, ibv_wc* wc, bool stop_on_done) {
  bool armed = false;
  for (;;) {
    const int n = ibv_poll_cq(cq, 1, wc);
    if (n > 0) {
      if (wc->status != IBV_WC_SUCCESS) return WcFailure(*wc, what);
      return std::nullopt;
    }
    if (n < 0) return PollFailure(n, what);
    const Clock::time_point now = Clock::now();
    if (auto f = stop.CheckAt(now)) return f;
    if (stop_on_done && stop.Done()) {
      return ProbeFailure{FailureReason::kInternal, "peer finished early", ""};
    }
    if (!armed) {
      // ibv_req_notify_cq returns an errno value (0 = ok).
      if (int r = ibv_req_notify_cq(cq, 0); r != 0) {
        return CallFailure("ibv_req_notify_cq", r > 0 ? r : errno);
      }
      armed = true;
      continue;  // poll once more before sleeping (the classic race)
    }
    pollfd pfd{ev.channel->fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, SleepMs(now, stop.deadline()));
    if (ready < 0) {
      if (errno == EINTR) continue;
      return CallFailure("poll (completion channel)", errno);
    }
    if (ready == 0) continue;  // slice over: check the CQ and the stop conditions again
    ibv_cq* ev_cq = nullptr;
    void* ev_ctx = nullptr;
    if (ibv_get_cq_event(ev.channel, &ev_cq, &ev_ctx) != 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return CallFailure("ibv_get_cq_event", errno);
    }
    ibv_ack_cq_events(ev_cq, 1);
    ++ev.events;
    // The event disarmed its CQ. One for another CQ of the channel (e.g. the send CQ armed by
    // an earlier wait that then found its completion by polling) leaves `cq` armed.
    if (ev_cq == cq) armed = false;
  }
}

}  // namespace rxe::probes
