#include "exporter/app.h"

#include <malloc.h>

#include <chrono>
#include <exception>
#include <thread>

#include "collectors/process_metrics.h"
#include "common/log.h"
#include "config/module_peers.h"
#include "exporter/config_source.h"
#include "exporter/notify.h"

namespace rxe::exporter {
namespace {

// Scrapes at least this large give their freed memory back to the kernel (1 MiB of text is
// about 13,000 series; the default prober.max_pairs allows ~41,500).
constexpr size_t kTrimAfterScrapeBytes = 1u << 20;

double NowUnixSeconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Valid but probably unintended settings (config::MeshWarnings), at every (re)load.
void LogConfigWarnings(const config::Config& cfg) {
  for (const std::string& w : config::MeshWarnings(cfg)) {
    log::Warn("config warning", {{"warning", w}});
  }
}

}  // namespace

App::App(Flags flags) : flags_(std::move(flags)) {}

App::~App() { Stop(std::chrono::steady_clock::now() + std::chrono::seconds(5)); }

Status App::Start() {
  auto cfg = LoadDaemonConfig(flags_);
  if (!cfg.ok()) return cfg.error();
  LogConfigWarnings(*cfg);
  auto web = LoadWebState(flags_.web_config_file);
  if (!web.ok()) return web.error();
  auto set = CollectorSet::Build(*cfg, flags_.sysfs_path, flags_.procfs_path);
  if (!set.ok()) return set.error();

  scraper_ = std::make_unique<Scraper>(std::move(set.value()));
  auth_ = std::make_shared<BasicAuth>(web->config.users);
  if (web->tls) tls_ = std::make_shared<TlsState>(web->tls);

  auto ep = std::make_shared<Endpoints>();
  ep->telemetry_path = flags_.telemetry_path;
  ep->max_requests = flags_.max_requests;
  ep->admin_auth = flags_.admin_auth;
  ep->metrics = [this] { return *render_.Get(); };  // concurrent scrapes share one render
  ep->ready = [this] { return ready(); };
  ep->reload = [this] { return TryReload("HTTP POST /-/reload"); };
  ep->debug_probes = [this] { return probes_.DebugJson(); };
  ep->debug_ud_mesh = [this] { return probes_.UdMeshJson(); };
  ep->auth_enabled = [this] { return CurrentAuth()->enabled(); };
  ep->check_credentials = [this](const std::string& header) {
    return CurrentAuth()->CheckHeader(header);
  };
  endpoints_ = ep;

  for (const auto& addr : flags_.listen_addresses) {
    auto server = std::make_unique<HttpServer>(addr, tls_, flags_.http);
    InstallRoutes(server->server(), endpoints_);
    RXE_RETURN_IF_ERROR(server->Bind());
    servers_.push_back(std::move(server));
  }
  probes::StartOptions probe_options;
  probe_options.sysfs_root = flags_.sysfs_path;  // counter attribution honours --path.sysfs
  Status probes = probes_.Start(*cfg, probe_options);
  if (!probes.ok()) return probes.error().Wrap("starting probes");
  probes_started_ = true;

  for (auto& s : servers_) {
    s->Start();
    log::Info("listening", {{"address", s->BoundAddress()},
                            {"tls", s->tls() ? "true" : "false"},
                            {"basic_auth", auth_->enabled() ? "true" : "false"}});
  }
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    config_ = std::move(cfg.value());
    reload_status_ = ReloadStatus{true, NowUnixSeconds()};
    peer_stamps_ = StampPeerFiles(config_);
  }
  started_ = true;
  ready_ = true;
  return Status::Ok();
}

Status App::Reload(const std::string& reason) {
  std::unique_lock<std::mutex> reload_lock(reload_mu_);
  return ReloadLocked(reason);
}

Status App::TryReload(const std::string& reason) {
  std::unique_lock<std::mutex> reload_lock(reload_mu_, std::try_to_lock);
  if (!reload_lock.owns_lock()) {
    return Error::Make(ErrorCode::kUnavailable, "a reload is already running, try again later");
  }
  return ReloadLocked(reason);
}

Status App::ReloadLocked(const std::string& reason) {
  if (!started_) return Error::Make(ErrorCode::kFailedPrecondition, "not running");
  notify::Reloading();
  log::Info("reloading configuration", {{"reason", reason}});
  Status st;
  try {
    st = DoReload();
  } catch (const std::exception& e) {
    st = Error::Make(ErrorCode::kInternal, std::string("reload failed: ") + e.what());
  }
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    reload_status_.last_successful = st.ok();
    if (st.ok()) reload_status_.last_success_unix_seconds = NowUnixSeconds();
    peer_stamps_ = StampPeerFiles(config_);
  }
  if (st.ok()) {
    log::Info("configuration reloaded", {{"config_file", flags_.config_file}});
  } else {
    log::Error("configuration reload failed, keeping the running configuration",
               {{"err", st.error().message}});
  }
  notify::Ready();
  return st;
}

Status App::DoReload() {
  auto cfg = LoadDaemonConfig(flags_);
  if (!cfg.ok()) return cfg.error();
  LogConfigWarnings(*cfg);
  auto web = LoadWebState(flags_.web_config_file);
  if (!web.ok()) return web.error();
  if ((web->tls != nullptr) != (tls_ != nullptr)) {
    return Error::Make(ErrorCode::kFailedPrecondition,
                       flags_.web_config_file +
                           ": tls_server_config was added or removed; restart rxe_exporter to "
                           "switch between HTTP and HTTPS");
  }
  auto set = CollectorSet::Build(*cfg, flags_.sysfs_path, flags_.procfs_path);
  if (!set.ok()) return set.error();
  Status applied = probes_.ApplyConfig(*cfg);
  if (!applied.ok()) return applied.error().Wrap("applying the config to the probes");

  scraper_->Swap(std::move(set.value()));
  if (tls_) tls_->Set(web->tls);
  std::lock_guard<std::mutex> lock(state_mu_);
  config_ = std::move(cfg.value());
  auth_ = std::make_shared<BasicAuth>(web->config.users);  // also drops the bcrypt cache
  return Status::Ok();
}

bool App::PollPeerFiles() {
  if (!started_) return false;
  PeerFileStamps now, before;
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    now = StampPeerFiles(config_);
    before = peer_stamps_;
  }
  if (now == before) return false;
  (void)Reload("peer files changed");
  return true;
}

bool App::Stop(std::chrono::steady_clock::time_point deadline) {
  ready_ = false;
  for (auto& s : servers_) s->Stop();
  // No reload half-applied to stopped probes; but a reload that hangs (a
  // peer file on a stalled mount, a slow resolver) must not hang the exit.
  std::unique_lock<std::mutex> reload_lock(reload_mu_, std::try_to_lock);
  while (!reload_lock.owns_lock() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    (void)reload_lock.try_lock();
  }
  const bool reload_done = reload_lock.owns_lock();
  if (reload_done) {
    started_ = false;
    if (probes_started_) {
      probes_.Stop();
      probes_started_ = false;
    }
    reload_lock.unlock();
  } else {
    log::Warn("a reload is still running at shutdown");
  }
  // The servers are joined either way: a hung reload must not leave their
  // (finished) threads unjoined at the exit (ThreadSanitizer: thread leak).
  bool all_joined = reload_done;
  for (auto& s : servers_) all_joined = s->Join(deadline) && all_joined;
  return all_joined;
}

bool App::Healthy() const {
  for (const auto& s : servers_) {
    if (!s->serving()) return false;
  }
  return ready();
}

std::vector<std::string> App::BoundAddresses() const {
  std::vector<std::string> out;
  for (const auto& s : servers_) out.push_back(s->BoundAddress());
  return out;
}

std::vector<int> App::BoundPorts() const {
  std::vector<int> out;
  for (const auto& s : servers_) out.push_back(s->port());
  return out;
}

std::string App::RenderMetrics() {
  std::string text;
  {
    std::vector<prometheus::MetricFamily> families;
    scraper_->Collect(families);
    AppendSelfMetrics(reload_status(), families);
    AppendHttpMetrics(ListenerStatsNow(), families);
    AppendRenderMetrics(render_.stats().coalesced, families);
    // /proc/self, not --path.procfs: the exporter's own process, as client_golang reads it.
    collectors::AppendProcessMetrics(collectors::ReadProcessSample("/proc"), families);
    try {
      for (auto& f : probes_.Collect()) families.push_back(std::move(f));
    } catch (const std::exception& e) {
      log::Error("probe metrics failed", {{"err", e.what()}});
    }
    text = SerializeText(MergeFamilies(std::move(families)));
  }
  // The families are freed by now (about 0.5 KB of heap per series), but glibc keeps freed
  // memory in the arena of the HTTP worker thread that ran this scrape, so every worker
  // would hold its largest scrape's high-water mark for good (issue 17: RSS 156 MB -> 1.24 GB
  // after three scrapes of 1.66 M series). Hand the free pages back after big scrapes.
  if (text.size() >= kTrimAfterScrapeBytes) malloc_trim(0);
  return text;
}

std::vector<ListenerStats> App::ListenerStatsNow() const {
  std::vector<ListenerStats> out;
  for (const auto& s : servers_) {
    const HttpServer::Stats st = s->stats();
    out.push_back({s->BoundAddress(), st.accepted, st.evicted, st.rejected, st.headers_too_large,
                   st.open});
  }
  return out;
}

ReloadStatus App::reload_status() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return reload_status_;
}

std::shared_ptr<BasicAuth> App::CurrentAuth() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  return auth_;
}

}  // namespace rxe::exporter
