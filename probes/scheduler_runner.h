// The threads around SchedulerCore: one dispatcher thread asks the core
// which pairs are due and starts one worker thread per probe (at most
// max_concurrent exist at once); workers hand outcomes to a sink. Stop()
// cancels running probes and joins everything.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "common/result.h"
#include "config/model.h"
#include "probes/prober.h"
#include "probes/scheduler.h"

namespace rxe::probes {

struct ScheduledPair {
  config::Module module;  // module.name set
  config::Peer peer;
};

/// Every (module, peer) pair of `cfg`: a module's `peers` (empty = all);
/// peers are cfg.peers then cfg.file_peers (first of a name wins); unknown
/// peer names are skipped with a warning. module.name is set to its key.
/// The RC probe pairs of `cfg` (ud_ping modules excluded: probes/ud_mesh.h runs them).
std::vector<ScheduledPair> PairsFrom(const config::Config& cfg);
/// The peers `module` probes: static + file peers, filtered by module.peers (unknown names
/// are logged and skipped). The one place the RC path and ud_ping resolve peers.
std::vector<config::Peer> ModulePeersOf(const config::Config& cfg, const config::Module& module);

SchedulerLimits LimitsFrom(const config::ProberConfig& p);

class SchedulerRunner {
 public:
  using RunFn = std::function<ProbeOutcome(const config::Module&, const config::Peer&,
                                           const std::atomic<bool>& cancel)>;
  using SinkFn = std::function<void(const ProbeOutcome&)>;

  SchedulerRunner(RunFn run, SinkFn sink, SchedulerLimits limits);
  ~SchedulerRunner();
  SchedulerRunner(const SchedulerRunner&) = delete;
  SchedulerRunner& operator=(const SchedulerRunner&) = delete;

  /// Replaces the pairs and limits (live; running probes finish normally).
  void Update(const std::vector<ScheduledPair>& pairs, const SchedulerLimits& limits);
  Status Start();
  /// Cancels running probes, joins the dispatcher and all workers.
  void Stop();
  /// Cancels running probes without waiting; Stop() joins.
  void RequestStop();
  uint64_t Deferred(DeferReason r) const;
  /// Exceptions (std::bad_alloc, ...) caught in a probe worker or the dispatcher loop;
  /// each was logged, and the loop went on.
  uint64_t InternalErrors() const { return internal_errors_.load(); }

 private:
  void Loop();
  void Launch(const PairKey& key);  // mu_ held
  void ReapFinished();              // mu_ held

  RunFn run_;
  SinkFn sink_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  SchedulerCore core_;
  std::map<PairKey, ScheduledPair> pairs_;
  bool stop_ = false;
  std::atomic<bool> cancel_{false};
  std::atomic<uint64_t> internal_errors_{0};
  std::thread dispatcher_;
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Worker> workers_;
};

}  // namespace rxe::probes
