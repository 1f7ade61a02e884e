#include "doctor/doctor_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <iostream>

#include "config/peer_address.h"
#include "config/units.h"
#include "doctor/doctor_gather.h"
#include "doctor/doctor_probe.h"
#include "doctor/doctor_render.h"
#include "probes/auth.h"
#include "probes/control_session.h"

namespace rxe::doctor {
namespace {


int UsageError(const std::string& message) {
  std::cerr << "rxe_exporter doctor: error: " << message << "\n";
  return kExitDoctorUsage;
}

/// Requests and needs taken from the configuration's modules.
void AddConfigFacts(const config::Config& cfg, int mtu_flag, Facts& f) {
  f.memlock_need = MemlockNeedFor(cfg);
  for (const auto& [name, m] : cfg.modules) {
    if (m.mtu) f.mtu_requests.push_back({*m.mtu, "module " + name});
    if (m.gid_index) f.gid_requests.push_back({*m.gid_index, m.device, "module " + name});
  }
  if (mtu_flag > 0) f.mtu_requests.push_back({static_cast<uint32_t>(mtu_flag), "--mtu"});
}

}  // namespace

CLI::App* AddDoctorSubcommand(CLI::App& app, DoctorOptions& o) {
  CLI::App* d = app.add_subcommand(
      "doctor",
      "Check this host's Soft-RoCE/RoCE setup and the configured peers; print pass/warn/fail "
      "with evidence and the fix (exit status: 0 pass, 1 warn, 2 fail)");
  d->fallthrough();
  d->add_option("--output", o.output, "text or json")->default_str("text");
  d->add_option("--peer", o.peers, "Extra peer HOST[:PORT] to check, repeatable")
      ->allow_extra_args(false);
  d->add_option("--mtu", o.mtu, "RoCE MTU you intend to use (checked against the netdev MTU)");
  d->add_flag("--no-probes", o.no_probes,
              "Skip the costly checks (peer exchanges, softirq under load)");
  d->add_option("--timeout", o.timeout, "Per-peer RDMA exchange timeout")->default_str("5s");
  d->add_option("--load-duration", o.load_duration, "Probe duration while sampling softirq load")
      ->default_str("2s");
  d->add_option("--path.modules", o.modules, "Kernel modules directory")
      ->default_str("/lib/modules");
  return d;
}

int RunDoctorCommand(const DoctorOptions& o, const DoctorInputs& in) {
  if (o.output != "text" && o.output != "json") {
    return UsageError("--output: invalid value \"" + o.output + "\" (allowed: text, json)");
  }
  if (o.mtu != 0 && o.mtu != 256 && o.mtu != 512 && o.mtu != 1024 && o.mtu != 2048 &&
      o.mtu != 4096) {
    return UsageError("--mtu: " + std::to_string(o.mtu) + " is not a RoCE MTU (256..4096)");
  }
  const auto timeout = config::ParseDuration(o.timeout);
  const auto load = config::ParseDuration(o.load_duration);
  if (!timeout || timeout->count() <= 0)
    return UsageError("--timeout: bad duration \"" + o.timeout + "\"");
  if (!load || load->count() <= 0 || *load > std::chrono::seconds(10)) {
    return UsageError("--load-duration: must be a duration in 1ms..10s, got \"" + o.load_duration +
                      "\"");
  }
  std::vector<config::Peer> peers;
  for (const auto& text : o.peers) {
    auto p = config::ParsePeerAddress(text);
    if (!p.ok()) return UsageError(p.error().message);
    p->name = text;
    peers.push_back(*p);
  }
  auto cfg = in.load_config ? in.load_config() : Result<config::Config>(config::Config{});
  if (!cfg.ok()) return UsageError(cfg.error().message);
  peers.insert(peers.begin(), cfg->file_peers.begin(), cfg->file_peers.end());
  peers.insert(peers.begin(), cfg->peers.begin(), cfg->peers.end());

  GatherPaths paths;
  paths.sysfs_root = in.sysfs_root;
  paths.procfs_root = in.procfs_root;
  paths.modules_root = o.modules;
  Facts facts = GatherLocalFacts(paths);
  AddConfigFacts(*cfg, o.mtu, facts);

  std::string load_error = "skipped (--no-probes)";
  if (!o.no_probes) {
    probes::ProberEnv env;
    env.factory = probes::DefaultSessionFactory();
    env.sysfs_root = in.sysfs_root;
    env.max_buffer_bytes = cfg->responder.max_buffer_bytes;
    if (!cfg->prober.psk_file.empty()) {
      auto key = probes::auth::LoadPsk(cfg->prober.psk_file);
      if (!key.ok()) return UsageError("prober.psk_file: " + key.error().message);
      env.psk = *key;
    }
    std::atomic<bool> cancel{false};
    std::optional<config::Peer> load_peer;
    for (const auto& peer : peers) {
      std::cerr << "doctor: checking peer " << peer.name << " (" << peer.address << ":" << peer.port
                << ") ...\n";
      facts.peers.push_back(CheckPeer(peer, env, *timeout, cancel));
      if (facts.peers.back().rdma_ok && !load_peer) load_peer = peer;
    }
    std::cerr << "doctor: sampling softirq load during a " << config::FormatDuration(*load)
              << " probe ...\n";
    load_error.clear();
    auto sample = SampleSoftirqUnderLoad(load_peer, LocalRoceAddress(facts.devices), env, *load,
                                         in.procfs_root, cancel, &load_error);
    if (load_error.empty()) facts.softirq = std::move(sample);
  }
  std::vector<CheckResult> results = RunChecks(facts);
  if (!load_error.empty()) {  // keep the check visible: say why it did not run
    auto at = std::find_if(results.begin(), results.end(),
                           [](const auto& r) { return r.check.rfind("peer_", 0) == 0; });
    CheckResult skip{"softirq"};
    skip.status = CheckStatus::kSkip;
    skip.evidence = "not measured: " + load_error;
    results.insert(at, skip);
  }
  std::cout << (o.output == "json" ? RenderJson(results) : RenderText(results)) << std::flush;
  return ExitStatus(Worst(results));
}

}  // namespace rxe::doctor
