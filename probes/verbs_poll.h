// Helpers for the probe hot loops: deadline/cancel checks that cost one
// relaxed atomic load per call (the clock is read every kClockEvery calls),
// and work-completion error mapping.
#pragma once

#include <infiniband/verbs.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "probes/engine.h"
#include "probes/failure.h"

namespace rxe::probes {

/// Completions per ibv_poll_cq call (perftest's CTX_POLL_BATCH).
inline constexpr int kPollBatch = 16;

class StopCheck {
 public:
  static constexpr uint32_t kClockEvery = 256;

  StopCheck(Clock::time_point deadline, const std::atomic<bool>& cancel,
            const std::atomic<bool>* done = nullptr)
      : deadline_(deadline), cancel_(cancel), done_(done) {}

  /// kTimeout ("cancelled") if cancel is set, kTimeout if the deadline passed
  /// (checked every kClockEvery calls), nullopt otherwise.
  std::optional<ProbeFailure> Check() {
    if (cancel_.load(std::memory_order_relaxed)) return Cancelled();
    if (++calls_ % kClockEvery == 0) return CheckAt(Clock::now());
    return std::nullopt;
  }
  /// Same with a timestamp the caller already has (always checks the deadline).
  std::optional<ProbeFailure> CheckAt(Clock::time_point now) const {
    if (cancel_.load(std::memory_order_relaxed)) return Cancelled();
    if (now >= deadline_) return Timeout();
    return std::nullopt;
  }
  Clock::time_point deadline() const { return deadline_; }
  /// The responder's `done` flag (false when none was given).
  bool Done() const { return done_ != nullptr && done_->load(std::memory_order_acquire); }

  static ProbeFailure Cancelled() { return ProbeFailure{FailureReason::kTimeout, "cancelled", ""}; }
  static ProbeFailure Timeout() {
    return ProbeFailure{FailureReason::kTimeout, "deadline exceeded", ""};
  }

 private:
  Clock::time_point deadline_;
  const std::atomic<bool>& cancel_;
  const std::atomic<bool>* done_;
  uint32_t calls_ = 0;
};

/// kWcError for a completion with status != IBV_WC_SUCCESS; `what` says which
/// queue ("send", "receive").
ProbeFailure WcFailure(const ibv_wc& wc, const char* what);
/// kInternal for ibv_poll_cq() < 0.
ProbeFailure PollFailure(int ret, const char* what);

/// Busy-polls `cq` for exactly one completion (latency loops). Fails on a
/// WC error, poll error, deadline, cancel, or (if `stop_on_done`) `done`.
std::optional<ProbeFailure> WaitOne(ibv_cq* cq, StopCheck& stop, const char* what, ibv_wc* wc,
                                    bool stop_on_done = false);

/// Latency samples from post timestamps: sample i = t[i+1] - t[i] in seconds
/// (perftest's delta[i] = tposted[i+1] - tposted[i]: one full round trip).
std::vector<double> StampDeltasSeconds(const std::vector<Clock::time_point>& t);

}  // namespace rxe::probes
