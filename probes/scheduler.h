// Probe scheduling decisions, separated from threads and clocks so they are
// unit-tested with a fake time (every call takes `now`). Not thread-safe:
// the runner (scheduler_runner.h) serialises calls.
//
// Policy (docs/protocol.md "Scheduling"):
//  - each (module, peer) pair runs every `interval` on a fixed grid; the first
//    slot is a deterministic splay (FNV-1a hash of module and peer, modulo the
//    interval) after the pair was added; each run adds a small random jitter
//    (<= 5% of the interval, <= 2 s). A run that overlaps its next slot skips
//    the missed slots; a pair never runs twice at once;
//  - at most max_concurrent probes at once;
//  - per local device: at most max_bandwidth_per_device bandwidth probes, and
//    latency probes never run alongside a bandwidth probe on the same device
//    (so latency is not measured under our own load); latency probes may run
//    alongside each other. A pair whose device is not known yet (module.device
//    empty and never run) conflicts with every device;
//  - byte budget: a token bucket of byte_budget_per_second bytes/s (capacity:
//    one second of budget or the largest probe, whichever is larger); a probe
//    starts only if its expected bytes fit; actual bytes are charged when it
//    finishes (the balance may go negative, which defers later probes);
//  - due pairs are served oldest-due first; a deferred pair holds back later
//    pairs that compete for the same resource (no starvation). Every due run
//    that cannot start is counted once per reason.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "probes/engine.h"

namespace rxe::probes {

struct PairKey {
  std::string module;
  std::string peer;
  auto operator<=>(const PairKey&) const = default;
};

struct JobSpec {
  PairKey key;
  Clock::duration interval = std::chrono::seconds(60);
  bool bandwidth = true;
  std::string device;           // module.device; "" = learned from the first run
  uint64_t expected_bytes = 0;  // initial estimate (ExpectedBytes)
};

struct SchedulerLimits {
  uint32_t max_concurrent = 2;
  uint32_t max_bandwidth_per_device = 1;
  uint64_t byte_budget_per_second = 0;  // 0 = unlimited
  double jitter_fraction = 0.05;
  Clock::duration max_jitter = std::chrono::seconds(2);
};

enum class DeferReason { kConcurrency, kBudget };

/// Expected bytes of one probe before it ever ran: bandwidth assumes 1 Gb/s
/// (rxe on a typical VM/NIC) for `duration`; latency is iterations x size x 2.
uint64_t ExpectedBytes(const SessionParams& p);

/// The deterministic splay offset of a pair within `interval`.
Clock::duration Splay(const PairKey& key, Clock::duration interval);

class SchedulerCore {
 public:
  explicit SchedulerCore(SchedulerLimits limits, uint64_t seed = 0x5eed);

  void SetLimits(const SchedulerLimits& limits);
  /// Replaces the job set. Kept pairs keep their slots (unless their interval
  /// changed); new pairs get their splay; removed pairs vanish (a running one
  /// finishes, its Finished() is accepted and ignored).
  void SetJobs(const std::vector<JobSpec>& jobs, Clock::time_point now);
  /// Pairs to start now; they are marked running.
  std::vector<PairKey> Due(Clock::time_point now);
  /// A started pair finished; `device` is the local device it used ("" if
  /// unknown), `bytes` what it moved (charged to the budget).
  void Finished(const PairKey& key, Clock::time_point now, const std::string& device, uint64_t bytes);
  /// When Due() should be called next (<= now + 1 s).
  Clock::time_point NextWakeup(Clock::time_point now) const;

  uint64_t Deferred(DeferReason r) const { return r == DeferReason::kBudget ? deferred_budget_ : deferred_concurrency_; }
  bool IsRunning(const PairKey& key) const { return running_.count(key) != 0; }
  size_t RunningCount() const { return running_.size(); }
  /// Next due time of a pair (for tests); epoch if unknown.
  Clock::time_point NextDue(const PairKey& key) const;

 private:
  struct Job {
    JobSpec spec;
    Clock::time_point grid{};      // the current slot
    Clock::time_point due{};       // slot + jitter
    std::string learned_device;
    uint64_t estimate = 0;         // expected bytes of the next run
    unsigned deferred_mask = 0;    // reasons already counted for this slot
  };
  struct Running {
    bool bandwidth = true;
    std::string device;  // "*" = unknown
    uint64_t charged = 0;
  };
  std::string DeviceKey(const Job& j) const;
  bool DeviceBlocked(const Job& j, const std::vector<std::string>& reserved) const;
  void Refill(Clock::time_point now);
  void CountDeferral(Job& j, DeferReason r);
  Clock::duration Jitter(Clock::duration interval);
  double Capacity() const;

  SchedulerLimits limits_;
  std::mt19937_64 rng_;
  std::map<PairKey, Job> jobs_;
  std::map<PairKey, Running> running_;
  double tokens_ = 0;
  bool tokens_init_ = false;
  Clock::time_point last_refill_{};
  uint64_t deferred_concurrency_ = 0;
  uint64_t deferred_budget_ = 0;
};

}  // namespace rxe::probes
