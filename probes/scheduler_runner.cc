#include "probes/scheduler_runner.h"

#include "common/log.h"
#include "common/log_caught.h"

namespace rxe::probes {
namespace {

constexpr auto kRetryAfterError = std::chrono::seconds(1);

/// Bytes a finished probe moved, charged to the byte budget.
uint64_t MovedBytes(const ProbeOutcome& o) {
  if (!o.measurement) return 0;
  if (const auto* bw = std::get_if<BandwidthMeasurement>(&*o.measurement)) return bw->bytes;
  const auto& lat = std::get<LatencyMeasurement>(*o.measurement);
  return uint64_t{o.params.size} * 2 * lat.rtt_seconds.size();
}

std::vector<JobSpec> Jobs(const std::vector<ScheduledPair>& pairs) {
  std::vector<JobSpec> jobs;
  for (const auto& p : pairs) {
    JobSpec j;
    j.key = PairKey{p.module.name, p.peer.name};
    j.interval = p.module.interval;
    j.bandwidth = config::IsBandwidth(p.module.type);
    j.device = p.module.device;
    j.expected_bytes = ExpectedBytes(ParamsFor(p.module));
    jobs.push_back(std::move(j));
  }
  return jobs;
}

}  // namespace

std::vector<config::Peer> ModulePeersOf(const config::Config& cfg, const config::Module& module) {
  // TODO(s5sd merge): this is config::ModulePeers(cfg, module); switch to it at the merge.
  std::map<std::string, const config::Peer*> peers;
  std::vector<const config::Peer*> ordered;
  for (const auto* list : {&cfg.peers, &cfg.file_peers}) {
    for (const auto& p : *list) {
      if (peers.emplace(p.name, &p).second) ordered.push_back(&p);
    }
  }
  std::vector<config::Peer> out;
  if (module.peers.empty()) {
    for (const auto* p : ordered) out.push_back(*p);
    return out;
  }
  for (const auto& pn : module.peers) {
    auto it = peers.find(pn);
    if (it == peers.end()) {
      log::Warn("module names an unknown peer; skipped", {{"module", module.name}, {"peer", pn}});
      continue;
    }
    out.push_back(*it->second);
  }
  return out;
}

std::vector<ScheduledPair> PairsFrom(const config::Config& cfg) {
  std::vector<ScheduledPair> out;
  for (const auto& [name, module] : cfg.modules) {
    // ud_ping never runs as RC probe sessions: probes/ud_mesh.h runs it.
    if (module.type == config::ProbeType::kUdPing) continue;
    config::Module m = module;
    m.name = name;
    for (auto& p : ModulePeersOf(cfg, m)) out.push_back(ScheduledPair{m, std::move(p)});
  }
  return out;
}

SchedulerLimits LimitsFrom(const config::ProberConfig& p) {
  SchedulerLimits l;
  l.max_concurrent = p.max_concurrent;
  l.max_bandwidth_per_device = p.max_bandwidth_per_device;
  l.byte_budget_per_second = p.byte_budget_per_second;
  return l;
}

SchedulerRunner::SchedulerRunner(RunFn run, SinkFn sink, SchedulerLimits limits)
    : run_(std::move(run)), sink_(std::move(sink)), core_(limits) {}

SchedulerRunner::~SchedulerRunner() { Stop(); }

void SchedulerRunner::Update(const std::vector<ScheduledPair>& pairs, const SchedulerLimits& limits) {
  std::lock_guard<std::mutex> lock(mu_);
  core_.SetLimits(limits);
  core_.SetJobs(Jobs(pairs), Clock::now());
  pairs_.clear();
  for (const auto& p : pairs) pairs_[PairKey{p.module.name, p.peer.name}] = p;
  cv_.notify_all();
}

Status SchedulerRunner::Start() {
  Stop();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = false;
    cancel_ = false;
  }
  try {
    dispatcher_ = std::thread([this] { Loop(); });
  } catch (const std::exception& e) {
    return Error::Make(ErrorCode::kInternal, std::string("scheduler thread: ") + e.what());
  }
  return Status::Ok();
}

void SchedulerRunner::RequestStop() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_ = true;
  cancel_ = true;
  cv_.notify_all();
}

void SchedulerRunner::Stop() {
  RequestStop();
  if (dispatcher_.joinable()) dispatcher_.join();
  std::list<Worker> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    workers.swap(workers_);
  }
  for (auto& w : workers) {
    if (w.thread.joinable()) w.thread.join();
  }
}

uint64_t SchedulerRunner::Deferred(DeferReason r) const {
  std::lock_guard<std::mutex> lock(mu_);
  return core_.Deferred(r);
}

void SchedulerRunner::ReapFinished() {
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->done->load()) {
      it->thread.join();  // past its last use of mu_: exits promptly
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
}

void SchedulerRunner::Launch(const PairKey& key) {
  auto it = pairs_.find(key);
  if (it == pairs_.end()) {
    core_.Finished(key, Clock::now(), "", 0);
    return;
  }
  try {
    auto done = std::make_shared<std::atomic<bool>>(false);
    auto body = [this, pair = it->second, key, done] {
      ProbeOutcome out;
      try {
        out = run_(pair.module, pair.peer, cancel_);
        if (!out.cancelled) sink_(out);
      } catch (const std::exception& e) {  // no exception leaves a thread
        ++internal_errors_;
        log::CaughtError("probe worker failed", e);
      }
      std::lock_guard<std::mutex> lock(mu_);
      core_.Finished(key, Clock::now(), out.device, MovedBytes(out));
      done->store(true);
      cv_.notify_all();
    };
    workers_.push_back(Worker{std::thread(std::move(body)), done});
  } catch (const std::exception& e) {
    ++internal_errors_;
    log::CaughtError("cannot start probe thread", e);
    core_.Finished(key, Clock::now(), "", 0);
  }
}

void SchedulerRunner::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    try {
      ReapFinished();
      auto now = Clock::now();
      for (const auto& key : core_.Due(now)) Launch(key);
      cv_.wait_until(lock, core_.NextWakeup(now));
    } catch (const std::exception& e) {  // e.g. std::bad_alloc: would std::terminate the daemon
      ++internal_errors_;
      log::CaughtError("probe scheduler failed; retrying in 1 s", e);
      cv_.wait_for(lock, kRetryAfterError, [this] { return stop_; });
    }
  }
}

}  // namespace rxe::probes
