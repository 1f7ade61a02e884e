// The active-probing half of the daemon: the responder (serves probe
// sessions from peers) and the prober (scheduler + probe engines + cached
// results). The exporter owns one ProbeService and forwards reloads to it.
#pragma once

#include <prometheus/metric_family.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/model.h"
#include "probes/control_session.h"
#include "probes/responder.h"

namespace rxe::probes {

/// Optional knobs for Start (defaults are the production values).
struct StartOptions {
  std::string sysfs_root = "/sys";  // for per-probe hw counter deltas (--path.sysfs)
  SessionFactory session_factory;   // empty = RdmaSession::Create (tests inject fakes)
  std::chrono::milliseconds responder_io_timeout{5000};  // idle clients are dropped after this
  /// Builds the responder settings, resolving peer names (getaddrinfo);
  /// empty = ResponderSettingsFrom. Tests inject a slow resolver.
  std::function<Result<ResponderSettings>(const config::Config&, Clock::duration io_timeout)>
      responder_settings;
};

/// What Start would read for `cfg`, without starting anything (for
/// --config.check): prober.psk_file and, when the responder is enabled, its
/// settings (responder.psk_file, listen addresses, the peers' ACL). The
/// errors are the ones Start would return.
Status CheckProbeConfig(const config::Config& cfg);

class ProbeService {
 public:
  ProbeService();
  ~ProbeService();
  ProbeService(const ProbeService&) = delete;
  ProbeService& operator=(const ProbeService&) = delete;

  /// Starts responder listeners and the scheduler for `cfg`. An error (e.g.
  /// the control port is in use) is returned, nothing is left running.
  Status Start(const config::Config& cfg);
  Status Start(const config::Config& cfg, const StartOptions& options);
  /// Applies a reloaded config: adds/removes peers and modules without a
  /// restart; series of removed pairs disappear from Collect(). Name
  /// resolution and key files are read before the lock that Collect() takes.
  Status ApplyConfig(const config::Config& cfg);
  /// Stops everything (running probes are cancelled); returns within ~1 s.
  /// Collect() keeps serving the cached results afterwards.
  void Stop();

  /// Probe metrics from cached results (scrapes never trigger probes).
  std::vector<prometheus::MetricFamily> Collect() const;
  /// JSON document of the last N results per (module, peer), for /debug/probes.
  std::string DebugJson() const;
  /// /debug/ud_mesh (UdMesh::DebugJson).
  std::string UdMeshJson();
  /// Ports the responder is bound to (listen_addresses order; empty if off).
  std::vector<uint16_t> ResponderPorts() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rxe::probes
