#include "exporter/daemon.h"

#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>
#include <utility>

#include "common/log.h"
#include "config/module_peers.h"
#include "exporter/app.h"
#include "exporter/build_info.h"
#include "exporter/config_source.h"
#include "exporter/notify.h"
#include "exporter/signals.h"
#include "probes/probe_service.h"

namespace rxe::exporter {
namespace {

using Clock = std::chrono::steady_clock;

// Blocks this large get their own mapping, returned to the kernel on free (see RunDaemon).
constexpr int kMmapThresholdBytes = 1 << 20;
constexpr int kMallocArenas = 2;  // M_ARENA_MAX (see RunDaemon)
constexpr auto kPeerFilePollInterval = std::chrono::seconds(5);
// SIGTERM to exit must stay under 2 s; ProbeService::Stop takes up to ~1 s.
constexpr auto kShutdownBudget = std::chrono::milliseconds(1500);

/// What the signal thread asks of the main loop.
struct Requests {
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  bool reload = false;
  int stop_signal = 0;
};

/// Runs reloads (SIGHUP, peer-file changes) off the main loop, which sends
/// the watchdog pings: a reload that blocks (a peer file on a stalled mount,
/// a slow resolver) must not get the daemon killed by the watchdog.
class ReloadThread {
 public:
  explicit ReloadThread(App& app) : app_(app), thread_([this] { Run(); }) {}
  ~ReloadThread() {
    RequestStop();
    thread_.join();
  }
  void RequestReload() {
    std::lock_guard<std::mutex> lock(mu_);
    reload_ = true;
    cv_.notify_all();
  }
  void RequestStop() {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    cv_.notify_all();
  }
  /// When the process exits without joining (a reload still hangs).
  void Abandon() { thread_.detach(); }

 private:
  void Run() {
    auto next_peer_poll = Clock::now() + kPeerFilePollInterval;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait_until(lock, next_peer_poll, [this] { return stop_ || reload_; });
      if (stop_) return;
      const bool reload = std::exchange(reload_, false);
      lock.unlock();
      if (reload) (void)app_.Reload("SIGHUP");
      if (Clock::now() >= next_peer_poll) {
        app_.PollPeerFiles();
        next_peer_poll = Clock::now() + kPeerFilePollInterval;
      }
      lock.lock();
    }
  }

  App& app_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool reload_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

int RunDaemon(const Flags& flags) {
  // A scrape's text and its HTTP copies are multi-MB strings. glibc's dynamic mmap threshold
  // rises to the largest freed mapping, so from the second scrape on they come from the heap
  // arena of whichever HTTP worker served it, where freed memory stays: RSS grew by the scrape
  // size per scrape and worker (issue 17: 156 MB -> 1.24 GB after three 122 MB scrapes). A
  // fixed threshold keeps every block of 1 MiB or more in its own mapping (tests/bench/README.md).
  mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
  // Probes, HTTP connections and the responder each run on short-lived threads, and glibc gives
  // threads up to 8 heap arenas per CPU that keep their freed memory: the soak's idle RSS grew
  // 22.7 -> 30.8 MB over 4,107 probes with 8 at once, and stayed at ~18 MB with 2 arenas
  // (tests/bench/README.md, "soak"). The daemon's allocations are not contended enough to need
  // more. MALLOC_ARENA_MAX in the environment still wins.
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, kMallocArenas);
  BlockDaemonSignals();  // before any thread exists
  log::Init(flags.log_level, flags.log_format);
  log::Info("starting rxe_exporter",
            {{"version", Version()}, {"revision", Revision()}, {"compiler", Compiler()}});

  App app(flags);
  Status started = app.Start();
  if (!started.ok()) {
    log::Error("cannot start", {{"err", started.error().message}});
    notify::Status("Failed to start: " + started.error().message);
    return 1;
  }
  notify::Ready();
  log::Info("rxe_exporter is ready", {{"telemetry_path", flags.telemetry_path}});

  Requests req;
  SignalThread signals([&req](int sig) {
    std::lock_guard<std::mutex> lock(req.mu);
    if (sig == SIGHUP) {
      req.reload = true;
    } else {
      req.stop = true;
      req.stop_signal = sig;
    }
    req.cv.notify_all();
  });

  const auto watchdog = notify::WatchdogPingInterval();
  std::chrono::microseconds tick = std::chrono::seconds(1);
  if (watchdog) {
    tick = std::min(tick, *watchdog);
    log::Info("systemd watchdog enabled",
              {{"ping_interval_us", std::to_string(watchdog->count())}});
  }
  ReloadThread reloader(app);
  int stop_signal = 0;
  for (;;) {
    bool reload = false;
    {
      std::unique_lock<std::mutex> lock(req.mu);
      req.cv.wait_for(lock, tick, [&req] { return req.stop || req.reload; });
      if (req.stop) {
        stop_signal = req.stop_signal;
        break;
      }
      reload = std::exchange(req.reload, false);
    }
    if (reload) reloader.RequestReload();
    if (watchdog && app.Healthy()) notify::Watchdog();
  }

  const auto deadline = Clock::now() + kShutdownBudget;
  log::Info("shutting down", {{"signal", strsignal(stop_signal)}});
  notify::Stopping();
  reloader.RequestStop();
  if (!app.Stop(deadline)) {
    // A client keeps a connection busy, or a reload hangs; do not let it delay the exit.
    log::Warn("HTTP connections or a reload still running at shutdown; exiting anyway");
    reloader.Abandon();
    std::fflush(nullptr);
    _exit(0);
  }
  log::Info("stopped");
  return 0;
}

int RunConfigCheck(const Flags& flags) {
  log::Init(flags.log_level, flags.log_format);
  auto cfg = LoadDaemonConfig(flags);
  if (!cfg.ok()) {
    std::cerr << cfg.error().message << "\n";
    return 1;
  }
  // Every file the daemon reads at start: the key files too, so that a config
  // that passes here does not then fail to start.
  Status probes = probes::CheckProbeConfig(*cfg);
  if (!probes.ok()) {
    std::cerr << flags.config_file << ": " << probes.error().message << "\n";
    return 1;
  }
  auto web = LoadWebState(flags.web_config_file);
  if (!web.ok()) {
    std::cerr << web.error().message << "\n";
    return 1;
  }
  // Valid but probably unintended (e.g. prober.self.name matching no peer): reported, not fatal.
  for (const std::string& w : config::MeshWarnings(*cfg)) std::cerr << "warning: " << w << "\n";
  std::cout << "config OK\n";
  return 0;
}

}  // namespace rxe::exporter
