// Cached probe results per (module, peer): cumulative counters, the latency
// histogram, the last probe's values and a bounded history for /debug/probes.
// Probes write (Record), scrapes read (ForEach); scrapes never start probes.
// Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "probes/counter_delta.h"
#include "probes/failure.h"
#include "probes/prober.h"
#include "probes/scheduler.h"
#include "probes/stats.h"

namespace rxe::probes {

inline constexpr FailureReason kAllFailureReasons[] = {
    FailureReason::kConnectRefused, FailureReason::kConnectTimeout, FailureReason::kRejected,
    FailureReason::kAuthFailed,     FailureReason::kNoRoute,        FailureReason::kNoGid,
    FailureReason::kMtuAboveActive, FailureReason::kQpTransitionFailed, FailureReason::kWcError,
    FailureReason::kTimeout,        FailureReason::kNoDevice,       FailureReason::kProtocolError,
    FailureReason::kInternal};

/// rxe_probe_latency_seconds upper bounds: 1, 2, 5 x 1 us ... 100 ms, then 1 s (+Inf implied).
inline constexpr std::array<double, 19> kLatencyBuckets = {
    1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3,
    2e-3, 5e-3, 1e-2, 2e-2, 5e-2, 1e-1, 2e-1, 5e-1, 1.0};

/// perftest reports one-way latency = RTT / 2 for send and write.
inline constexpr double kRttFactor = 2.0;

/// A configured pair, as the store exposes it.
struct PairInfo {
  PairKey key;
  config::ProbeType type = config::ProbeType::kWriteBw;
  std::map<std::string, std::string> labels;  // the peer's extra labels
  bool operator==(const PairInfo&) const = default;
};

/// One history entry (the raw latency samples are dropped, the stats kept).
struct HistoryEntry {
  ProbeOutcome outcome;
  std::optional<LatencyStats> latency;
  std::optional<BandwidthStats> bandwidth;
};

struct PairState {
  PairInfo info;
  uint64_t probes = 0;
  std::map<FailureReason, uint64_t> failures;  // every reason, from 0
  bool has_result = false;
  bool last_success = false;
  double last_duration_seconds = 0;
  double last_success_timestamp = 0;  // unix seconds, 0 = never
  // Bandwidth (last successful probe, and totals).
  BandwidthStats last_bandwidth;
  uint64_t transferred_bytes = 0;
  uint64_t messages = 0;
  // Latency: histogram of one-way samples, stats of the last successful probe.
  std::array<uint64_t, kLatencyBuckets.size()> bucket_counts{};  // non-cumulative
  uint64_t latency_count = 0;
  double latency_sum = 0;
  LatencyStats last_latency;
  CounterSnapshot attributed;  // kAttributedCounters, from 0
  std::deque<HistoryEntry> history;  // newest last
};

class ResultStore {
 public:
  /// Sets the configured pairs: new pairs start at 0, removed pairs vanish,
  /// a pair whose type or labels changed starts over. Bounds the history.
  void SetPairs(const std::vector<PairInfo>& pairs, size_t history_per_pair);
  /// Adds a finished probe; ignored if the pair is no longer configured.
  void Record(const ProbeOutcome& outcome);
  /// Calls `fn` for every pair (in key order) under the store's lock.
  void ForEach(const std::function<void(const PairState&)>& fn) const;
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::map<PairKey, PairState> pairs_;
  size_t history_per_pair_ = 20;
};

}  // namespace rxe::probes
