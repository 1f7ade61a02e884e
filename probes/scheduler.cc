#include "probes/scheduler.h"

#include <algorithm>

namespace rxe::probes {
namespace {

constexpr double kAssumedBytesPerSecond = 125e6;  // 1 Gb/s
constexpr auto kDeferredPoll = std::chrono::milliseconds(50);
const std::string kUnknownDevice = "*";

bool Conflicts(const std::string& a, const std::string& b) {
  return a == b || a == kUnknownDevice || b == kUnknownDevice;
}

}  // namespace

uint64_t ExpectedBytes(const SessionParams& p) {
  if (config::IsBandwidth(p.type)) {
    double secs = std::chrono::duration<double>(p.duration).count();
    return static_cast<uint64_t>(secs * kAssumedBytesPerSecond);
  }
  return uint64_t{p.iterations} * p.size * 2;
}

Clock::duration Splay(const PairKey& key, Clock::duration interval) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  auto mix = [&h](const std::string& s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // separator, so ("ab","c") != ("a","bc")
    h *= 1099511628211ull;
  };
  mix(key.module);
  mix(key.peer);
  auto n = interval.count();
  if (n <= 0) return Clock::duration::zero();
  return Clock::duration(static_cast<Clock::rep>(h % static_cast<uint64_t>(n)));
}

SchedulerCore::SchedulerCore(SchedulerLimits limits, uint64_t seed) : limits_(limits), rng_(seed) {}

void SchedulerCore::SetLimits(const SchedulerLimits& limits) { limits_ = limits; }

Clock::duration SchedulerCore::Jitter(Clock::duration interval) {
  auto max = std::min<Clock::duration>(
      std::chrono::duration_cast<Clock::duration>(interval * limits_.jitter_fraction),
      limits_.max_jitter);
  if (max.count() <= 0) return Clock::duration::zero();
  std::uniform_int_distribution<Clock::rep> d(0, max.count());
  return Clock::duration(d(rng_));
}

void SchedulerCore::SetJobs(const std::vector<JobSpec>& specs, Clock::time_point now) {
  std::map<PairKey, Job> next;
  for (const auto& s : specs) {
    auto it = jobs_.find(s.key);
    if (it != jobs_.end() && it->second.spec.interval == s.interval) {
      Job j = std::move(it->second);
      if (j.spec.device != s.device) j.learned_device.clear();
      if (j.spec.expected_bytes != s.expected_bytes) j.estimate = s.expected_bytes;
      j.spec = s;
      next.emplace(s.key, std::move(j));
      continue;
    }
    Job j;
    j.spec = s;
    j.estimate = s.expected_bytes;
    j.grid = now + Splay(s.key, s.interval);
    j.due = j.grid + Jitter(s.interval);
    next.emplace(s.key, std::move(j));
  }
  jobs_ = std::move(next);
}

double SchedulerCore::Capacity() const {
  double cap = static_cast<double>(limits_.byte_budget_per_second);
  for (const auto& [k, j] : jobs_) cap = std::max(cap, static_cast<double>(j.estimate));
  return cap;
}

void SchedulerCore::Refill(Clock::time_point now) {
  if (limits_.byte_budget_per_second == 0) return;
  if (!tokens_init_) {
    tokens_ = Capacity();
    tokens_init_ = true;
    last_refill_ = now;
    return;
  }
  double dt = std::chrono::duration<double>(now - last_refill_).count();
  if (dt > 0) {
    tokens_ = std::min(Capacity(), tokens_ + dt * static_cast<double>(limits_.byte_budget_per_second));
    last_refill_ = now;
  }
}

std::string SchedulerCore::DeviceKey(const Job& j) const {
  if (!j.spec.device.empty()) return j.spec.device;
  if (!j.learned_device.empty()) return j.learned_device;
  return kUnknownDevice;
}

bool SchedulerCore::DeviceBlocked(const Job& j, const std::vector<std::string>& reserved) const {
  std::string dev = DeviceKey(j);
  for (const auto& r : reserved) {
    if (Conflicts(dev, r)) return true;
  }
  uint32_t bw = 0, lat = 0;
  for (const auto& [k, r] : running_) {
    if (!Conflicts(dev, r.device)) continue;
    (r.bandwidth ? bw : lat) += 1;
  }
  if (j.spec.bandwidth) return bw >= std::max<uint32_t>(1, limits_.max_bandwidth_per_device) || lat > 0;
  return bw > 0;
}

void SchedulerCore::CountDeferral(Job& j, DeferReason r) {
  unsigned bit = r == DeferReason::kBudget ? 1u : 2u;
  if (j.deferred_mask & bit) return;
  j.deferred_mask |= bit;
  (r == DeferReason::kBudget ? deferred_budget_ : deferred_concurrency_) += 1;
}

std::vector<PairKey> SchedulerCore::Due(Clock::time_point now) {
  Refill(now);
  std::vector<Job*> due;
  for (auto& [k, j] : jobs_) {
    if (j.due <= now && running_.count(k) == 0) due.push_back(&j);
  }
  std::sort(due.begin(), due.end(), [](const Job* a, const Job* b) {
    return a->due != b->due ? a->due < b->due : a->spec.key < b->spec.key;
  });
  std::vector<PairKey> start;
  std::vector<std::string> reserved;  // devices held by an earlier deferred pair
  bool budget_blocked = false;
  for (Job* j : due) {
    if (running_.size() >= std::max<uint32_t>(1, limits_.max_concurrent)) {
      CountDeferral(*j, DeferReason::kConcurrency);
      continue;
    }
    if (DeviceBlocked(*j, reserved)) {
      CountDeferral(*j, DeferReason::kConcurrency);
      reserved.push_back(DeviceKey(*j));
      continue;
    }
    double cost = static_cast<double>(j->estimate);
    if (limits_.byte_budget_per_second > 0 && (budget_blocked || tokens_ < cost)) {
      CountDeferral(*j, DeferReason::kBudget);
      budget_blocked = true;
      continue;
    }
    if (limits_.byte_budget_per_second > 0) tokens_ -= cost;
    running_[j->spec.key] = Running{j->spec.bandwidth, DeviceKey(*j), j->estimate};
    j->deferred_mask = 0;
    start.push_back(j->spec.key);
  }
  return start;
}

void SchedulerCore::Finished(const PairKey& key, Clock::time_point now, const std::string& device,
                             uint64_t bytes) {
  auto r = running_.find(key);
  if (r == running_.end()) return;
  if (limits_.byte_budget_per_second > 0) {
    Refill(now);
    tokens_ += static_cast<double>(r->second.charged) - static_cast<double>(bytes);
  }
  running_.erase(r);
  auto it = jobs_.find(key);
  if (it == jobs_.end()) return;  // removed while running
  Job& j = it->second;
  if (!device.empty()) j.learned_device = device;
  if (j.spec.bandwidth && bytes > 0) j.estimate = bytes;
  auto interval = std::max<Clock::duration>(j.spec.interval, std::chrono::milliseconds(1));
  j.grid += interval;
  if (j.grid <= now) j.grid += ((now - j.grid) / interval + 1) * interval;  // skip missed slots
  j.due = j.grid + Jitter(interval);
}

Clock::time_point SchedulerCore::NextWakeup(Clock::time_point now) const {
  // Pairs already due were deferred by Due(): re-check them shortly (a finish
  // also wakes the runner); otherwise sleep until the next slot.
  Clock::time_point next = now + std::chrono::seconds(1);
  for (const auto& [k, j] : jobs_) {
    if (running_.count(k) != 0) continue;
    next = std::min(next, j.due > now ? j.due : now + kDeferredPoll);
  }
  return next;
}

Clock::time_point SchedulerCore::NextDue(const PairKey& key) const {
  auto it = jobs_.find(key);
  return it == jobs_.end() ? Clock::time_point{} : it->second.due;
}

}  // namespace rxe::probes
