// The active-probing half of the daemon: the responder (serves probe
// sessions from peers) and the prober (scheduler + probe engines + cached
// results). The exporter owns one ProbeService and forwards reloads to it.
#pragma once

#include <prometheus/metric_family.h>

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/model.h"

namespace rxe::probes {

class ProbeService {
 public:
  ProbeService();
  ~ProbeService();
  ProbeService(const ProbeService&) = delete;
  ProbeService& operator=(const ProbeService&) = delete;

  /// Starts responder listeners and the scheduler for `cfg`. An error (e.g.
  /// the control port is in use) is returned, nothing is left running.
  Status Start(const config::Config& cfg);
  /// Applies a reloaded config: adds/removes peers and modules without a
  /// restart; series of removed pairs disappear from Collect().
  Status ApplyConfig(const config::Config& cfg);
  /// Stops everything (running probes are cancelled); returns within ~1 s.
  void Stop();

  /// Probe metrics from cached results (scrapes never trigger probes).
  std::vector<prometheus::MetricFamily> Collect() const;
  /// JSON document of the last N results per (module, peer), for /debug/probes.
  std::string DebugJson() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rxe::probes
