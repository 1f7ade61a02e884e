// The daemon's state and lifecycle: config, web config (TLS, basic auth),
// the scrape pipeline, the ProbeService and one HttpServer per listen
// address. Signals and sd_notify are wired around it in daemon.cc, so tests
// can run a complete App in-process.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/model.h"
#include "exporter/basic_auth.h"
#include "exporter/flags.h"
#include "exporter/http_server.h"
#include "exporter/peer_watch.h"
#include "exporter/routes.h"
#include "exporter/scrape.h"
#include "exporter/self_metrics.h"
#include "exporter/shared_render.h"
#include "probes/probe_service.h"

namespace rxe::exporter {

class App {
 public:
  explicit App(Flags flags);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  /// Loads config and web config, binds every listener, starts the
  /// ProbeService and serves. Any error leaves nothing serving.
  Status Start();
  /// Re-reads config and web config (SIGHUP, POST /-/reload, peer files).
  /// On error the running config is kept and the error is returned (and logged).
  Status Reload(const std::string& reason);
  /// Reload, unless one is already running: then kUnavailable at once.
  Status TryReload(const std::string& reason);
  /// Reloads if a peer file (cfg.peer_files) appeared, vanished or changed.
  /// Returns true if a reload was attempted.
  bool PollPeerFiles();
  /// Stops listeners and probes. Returns false if some HTTP connection was
  /// still being served, or a reload still running, at `deadline` (the
  /// caller may then exit anyway).
  bool Stop(std::chrono::steady_clock::time_point deadline);

  bool ready() const { return ready_.load(); }
  /// All listeners are serving (for the systemd watchdog).
  bool Healthy() const;
  /// Bound "host:port" of each listener, in --web.listen-address order.
  std::vector<std::string> BoundAddresses() const;
  std::vector<int> BoundPorts() const;
  /// One scrape of the telemetry path, serialized.
  std::string RenderMetrics();
  ReloadStatus reload_status() const;
  std::vector<ListenerStats> ListenerStatsNow() const;

 private:
  Status ReloadLocked(const std::string& reason);
  Status DoReload();
  std::shared_ptr<BasicAuth> CurrentAuth() const;

  const Flags flags_;
  probes::ProbeService probes_;
  std::unique_ptr<Scraper> scraper_;
  std::shared_ptr<TlsState> tls_;  // null = plain HTTP (fixed at start)
  SharedRender render_{[this] { return RenderMetrics(); }};  // before servers_: outlives them
  std::vector<std::unique_ptr<HttpServer>> servers_;
  std::shared_ptr<Endpoints> endpoints_;

  // One reload at a time. A plain mutex, polled with try_lock by Stop(): a timed_mutex's
  // try_lock_until(steady_clock) is pthread_mutex_clocklock, which ThreadSanitizer does not
  // intercept (llvm/llvm-project#62623): it reported every shutdown as "unlock of an unlocked
  // mutex" and lost the lock's ordering.
  std::mutex reload_mu_;
  mutable std::mutex state_mu_;
  config::Config config_;
  std::shared_ptr<BasicAuth> auth_;
  ReloadStatus reload_status_;
  PeerFileStamps peer_stamps_;

  std::atomic<bool> started_{false};
  std::atomic<bool> ready_{false};
  bool probes_started_ = false;
};

}  // namespace rxe::exporter
