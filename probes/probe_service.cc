// ProbeService: wires the responder, the scheduler (prober) and the cached
// results together, and applies reloads live.
#include "probes/probe_service.h"

#include <mutex>

#include "common/log.h"
#include "probes/auth.h"
#include "probes/probe_metrics.h"
#include "probes/prober.h"
#include "probes/responder.h"
#include "probes/results.h"
#include "probes/results_json.h"
#include "probes/scheduler_runner.h"
#include "probes/ud_mesh.h"

namespace rxe::probes {
namespace {

std::vector<PairInfo> PairInfos(const std::vector<ScheduledPair>& pairs) {
  std::vector<PairInfo> out;
  for (const auto& p : pairs) {
    out.push_back(PairInfo{PairKey{p.module.name, p.peer.name}, p.module.type, p.peer.labels});
  }
  return out;
}

Result<ProberEnv> EnvFrom(const config::Config& cfg, const StartOptions& o, DeviceActivity* activity) {
  ProberEnv env;
  env.activity = activity;
  env.factory = o.session_factory ? o.session_factory : DefaultSessionFactory();
  env.sysfs_root = o.sysfs_root;
  env.max_message_bytes = cfg.responder.max_message_bytes;
  env.max_buffer_bytes = cfg.responder.max_buffer_bytes;
  if (!cfg.prober.psk_file.empty()) {
    auto key = auth::LoadPsk(cfg.prober.psk_file);
    if (!key.ok()) return key.error().Wrap("prober.psk_file");
    env.psk = std::move(*key);
  }
  return env;
}

}  // namespace

Status CheckProbeConfig(const config::Config& cfg) {
  const StartOptions defaults;
  auto env = EnvFrom(cfg, defaults, nullptr);
  if (!env.ok()) return env.error();
  if (cfg.responder.enabled) {
    auto settings = ResponderSettingsFrom(cfg, defaults.responder_io_timeout);
    if (!settings.ok()) return settings.error();
  }
  return Status::Ok();
}

struct ProbeService::Impl {
  StartOptions options;
  DeviceActivity activity;
  ResultStore results;
  std::unique_ptr<Responder> responder;
  std::unique_ptr<SchedulerRunner> runner;
  /// ud_ping: one UD endpoint per device for the daemon's life (never an RC session).
  UdMesh mesh{[this](const config::Module& m, const config::Peer& p, const std::atomic<bool>& c) {
    return RunOne(m, p, c);
  }};

  mutable std::mutex mu;  // guards the fields below and serialises Start/Apply/Stop
  std::shared_ptr<const ProberEnv> env;
  config::ResponderConfig responder_cfg;
  bool started = false;

  std::shared_ptr<const ProberEnv> Env() const {
    std::lock_guard<std::mutex> lock(env_mu);
    return env;
  }
  mutable std::mutex env_mu;  // env is read by probe workers

  ProbeOutcome RunOne(const config::Module& m, const config::Peer& p, const std::atomic<bool>& cancel) {
    auto e = Env();
    return RunProbe(m, p, *e, cancel);
  }

  /// What ApplyConfig/Start may compute without the lock: it can block
  /// (getaddrinfo of peer names, key files).
  struct Prepared {
    Result<ProberEnv> env;
    Result<ResponderSettings> responder;
  };
  Prepared Prepare(const config::Config& cfg, const StartOptions& o) {
    Prepared p{EnvFrom(cfg, o, &activity), ResponderSettings{}};
    if (cfg.responder.enabled) {
      p.responder = o.responder_settings ? o.responder_settings(cfg, o.responder_io_timeout)
                                         : ResponderSettingsFrom(cfg, o.responder_io_timeout);
    }
    return p;
  }

  /// The ACL whose sources' pings the UD endpoints answer: the responder's (none if it is off).
  static std::optional<SourceAcl> UdAcl(const config::Config& cfg,
                                        const Result<ResponderSettings>& settings) {
    if (!cfg.responder.enabled || !settings.ok()) return std::nullopt;
    return settings->acl;
  }

  Status ApplyResponder(const config::Config& cfg, Result<ResponderSettings> settings) {
    bool restart = !responder->running() || cfg.responder.listen_addresses != responder_cfg.listen_addresses;
    if (!cfg.responder.enabled) {
      responder->Stop();
      responder_cfg = cfg.responder;
      return Status::Ok();
    }
    if (!settings.ok()) return settings.error();
    if (!restart) {
      responder->Update(std::move(*settings));
      responder_cfg = cfg.responder;
      return Status::Ok();
    }
    responder->Stop();
    Status st = responder->Start(std::move(*settings));
    if (!st.ok()) return st;
    responder_cfg = cfg.responder;
    return Status::Ok();
  }
};

ProbeService::ProbeService() : impl_(std::make_unique<Impl>()) {}
ProbeService::~ProbeService() { Stop(); }

Status ProbeService::Start(const config::Config& cfg) { return Start(cfg, StartOptions{}); }

Status ProbeService::Start(const config::Config& cfg, const StartOptions& options) {
  Stop();
  Impl& d = *impl_;
  Impl::Prepared prepared = d.Prepare(cfg, options);
  std::lock_guard<std::mutex> lock(d.mu);
  d.options = options;
  auto& env = prepared.env;
  if (!env.ok()) return env.error();
  {
    std::lock_guard<std::mutex> el(d.env_mu);
    d.env = std::make_shared<const ProberEnv>(std::move(*env));
  }
  SessionFactory f = options.session_factory ? options.session_factory : DefaultSessionFactory();
  d.responder = std::make_unique<Responder>(std::move(f), &d.activity);
  d.responder->SetUdAddressSource([&d](in_addr ip) { return d.mesh.AddressFor(ip); });
  d.responder_cfg = config::ResponderConfig{};
  auto ud_acl = Impl::UdAcl(cfg, prepared.responder);
  if (cfg.responder.enabled) {
    Status st = d.ApplyResponder(cfg, std::move(prepared.responder));
    if (!st.ok()) return st;
  }
  auto pairs = PairsFrom(cfg);
  d.results.SetPairs(PairInfos(pairs), cfg.prober.history_per_pair);
  d.runner = std::make_unique<SchedulerRunner>(
      [&d](const config::Module& m, const config::Peer& p, const std::atomic<bool>& cancel) {
        return d.RunOne(m, p, cancel);
      },
      [&d](const ProbeOutcome& o) { d.results.Record(o); }, LimitsFrom(cfg.prober));
  d.runner->Update(pairs, LimitsFrom(cfg.prober));
  Status st = d.runner->Start();
  if (!st.ok()) {
    d.responder->Stop();
    d.runner.reset();
    return st;
  }
  d.mesh.Apply(cfg, std::move(ud_acl));
  d.started = true;
  log::Info("probe service started", {{"pairs", std::to_string(pairs.size())},
                                      {"responder", cfg.responder.enabled ? "on" : "off"}});
  return Status::Ok();
}

Status ProbeService::ApplyConfig(const config::Config& cfg) {
  Impl& d = *impl_;
  StartOptions options;
  {
    std::lock_guard<std::mutex> lock(d.mu);
    options = d.options;
  }
  // Load everything that can fail (or block) before changing anything, and
  // outside the lock: a scrape must not wait for a slow resolver.
  Impl::Prepared prepared = d.Prepare(cfg, options);
  {
    std::lock_guard<std::mutex> lock(d.mu);
    if (d.started) {
      auto& env = prepared.env;
      if (!env.ok()) return env.error();
      auto ud_acl = Impl::UdAcl(cfg, prepared.responder);
      RXE_RETURN_IF_ERROR(d.ApplyResponder(cfg, std::move(prepared.responder)));
      {
        std::lock_guard<std::mutex> el(d.env_mu);
        d.env = std::make_shared<const ProberEnv>(std::move(*env));
      }
      auto pairs = PairsFrom(cfg);
      d.results.SetPairs(PairInfos(pairs), cfg.prober.history_per_pair);
      d.runner->Update(pairs, LimitsFrom(cfg.prober));
      d.mesh.Apply(cfg, std::move(ud_acl));
      log::Info("probe service reloaded", {{"pairs", std::to_string(pairs.size())}});
      return Status::Ok();
    }
  }
  return Start(cfg, options);  // never started, or stopped: start with the same knobs
}

void ProbeService::Stop() {
  Impl& d = *impl_;
  std::lock_guard<std::mutex> lock(d.mu);
  // Cancel both sides first (a loopback probe has a half in each), then join.
  if (d.runner) d.runner->RequestStop();
  if (d.responder) d.responder->RequestStop();
  if (d.runner) d.runner->Stop();
  if (d.responder) d.responder->Stop();
  d.mesh.Stop();
  d.started = false;
}

std::vector<prometheus::MetricFamily> ProbeService::Collect() const {
  const Impl& d = *impl_;
  ServiceCounters c;
  {
    std::lock_guard<std::mutex> lock(d.mu);
    if (d.runner) {
      c.deferred_budget = d.runner->Deferred(DeferReason::kBudget);
      c.deferred_concurrency = d.runner->Deferred(DeferReason::kConcurrency);
      c.internal_errors = d.runner->InternalErrors();
    }
    if (d.responder && d.responder->running()) c.responder = d.responder->Stats();
  }
  auto families = BuildProbeFamilies(d.results, c);
  MergeFamilies(&families, impl_->mesh.Collect());
  return families;
}

std::string ProbeService::DebugJson() const { return ResultsToJson(impl_->results); }

std::string ProbeService::UdMeshJson() { return impl_->mesh.DebugJson(); }

std::vector<uint16_t> ProbeService::ResponderPorts() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->responder ? impl_->responder->BoundPorts() : std::vector<uint16_t>{};
}

}  // namespace rxe::probes
