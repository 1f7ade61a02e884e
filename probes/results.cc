#include "probes/results.h"

#include <algorithm>

namespace rxe::probes {
namespace {

PairState Fresh(const PairInfo& info) {
  PairState s;
  s.info = info;
  for (auto r : kAllFailureReasons) s.failures[r] = 0;
  for (auto name : kAttributedCounters) s.attributed[std::string(name)] = 0;
  return s;
}

double UnixSeconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

void Observe(PairState& s, double seconds) {
  s.latency_count++;
  s.latency_sum += seconds;
  auto it = std::lower_bound(kLatencyBuckets.begin(), kLatencyBuckets.end(), seconds);
  if (it != kLatencyBuckets.end()) s.bucket_counts[static_cast<size_t>(it - kLatencyBuckets.begin())]++;
  // Above the last bound: only in count/sum (the +Inf bucket).
}

}  // namespace

void ResultStore::SetPairs(const std::vector<PairInfo>& pairs, size_t history_per_pair) {
  std::lock_guard<std::mutex> lock(mu_);
  history_per_pair_ = history_per_pair;
  std::map<PairKey, PairState> next;
  for (const auto& info : pairs) {
    auto it = pairs_.find(info.key);
    if (it != pairs_.end() && it->second.info == info) {
      next.emplace(info.key, std::move(it->second));
    } else {
      next.emplace(info.key, Fresh(info));
    }
  }
  for (auto& [k, s] : next) {
    while (s.history.size() > history_per_pair_) s.history.pop_front();
  }
  pairs_ = std::move(next);
}

void ResultStore::Record(const ProbeOutcome& outcome) {
  HistoryEntry entry;
  entry.outcome = outcome;
  if (outcome.measurement) {
    if (const auto* bw = std::get_if<BandwidthMeasurement>(&*outcome.measurement)) {
      entry.bandwidth = ComputeBandwidth(bw->bytes, bw->messages, bw->elapsed);
    } else if (const auto* lat = std::get_if<LatencyMeasurement>(&*outcome.measurement)) {
      entry.latency = ComputeLatency(lat->rtt_seconds, kRttFactor);
    }
  }

  std::lock_guard<std::mutex> lock(mu_);
  auto it = pairs_.find(PairKey{outcome.module, outcome.peer});
  if (it == pairs_.end()) return;
  PairState& s = it->second;
  if (s.info.type != outcome.type) return;  // from before a module change
  s.probes++;
  s.has_result = true;
  s.last_success = outcome.success;
  s.last_duration_seconds = std::chrono::duration<double>(outcome.duration).count();
  if (outcome.failure) {
    s.failures[outcome.failure->reason]++;
  } else {
    s.last_success_timestamp = UnixSeconds(outcome.started_at) + s.last_duration_seconds;
  }
  if (outcome.success && entry.bandwidth) {
    const auto& bw = std::get<BandwidthMeasurement>(*outcome.measurement);
    s.last_bandwidth = *entry.bandwidth;
    s.transferred_bytes += bw.bytes;
    s.messages += bw.messages;
  }
  if (outcome.success && entry.latency) {
    for (double rtt : std::get<LatencyMeasurement>(*outcome.measurement).rtt_seconds) {
      Observe(s, rtt / kRttFactor);
    }
    s.last_latency = *entry.latency;
  }
  if (outcome.counters_attributed) {
    for (const auto& [name, delta] : outcome.counter_deltas) {
      auto c = s.attributed.find(name);
      if (c != s.attributed.end()) c->second += delta;
    }
  }
  if (entry.outcome.measurement) {
    if (auto* lat = std::get_if<LatencyMeasurement>(&*entry.outcome.measurement)) {
      lat->rtt_seconds.clear();
      lat->rtt_seconds.shrink_to_fit();
    }
  }
  if (history_per_pair_ == 0) return;
  s.history.push_back(std::move(entry));
  while (s.history.size() > history_per_pair_) s.history.pop_front();
}

void ResultStore::ForEach(const std::function<void(const PairState&)>& fn) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [k, s] : pairs_) fn(s);
}

size_t ResultStore::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pairs_.size();
}

}  // namespace rxe::probes
