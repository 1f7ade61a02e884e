#include "sweep/sweep_command.h"

#include <CLI/CLI.hpp>
#include <charconv>

#include "config/peer_address.h"
#include "config/units.h"
#include "probes/auth.h"
#include "sweep/sweep_values.h"

namespace rxe::sweep {
namespace {

Error Bad(const std::string& flag, const std::string& why) {
  return Error::Make(ErrorCode::kInvalidArgument, flag + ": " + why);
}

Result<uint32_t> Num(Param p, const std::string& flag, const std::string& text) {
  auto v = ParseParamValue(p, text);
  if (!v.ok()) return Bad(flag, v.error().message);
  return static_cast<uint32_t>(*v);
}

}  // namespace

namespace {

Result<std::chrono::milliseconds> Dur(const std::string& flag, const std::string& text) {
  auto d = config::ParseDuration(text);
  if (!d) return Bad(flag, "bad duration \"" + text + "\" (e.g. 500ms, 2s)");
  return *d;
}

/// The held parameters from the flags (the article's values by default).
Result<Base> BaseFrom(const SweepOptions& o) {
  Base b;
  b.params = ArticleDefaults();
  auto type = ParseProbeTypeName(o.type);
  if (!type)
    return Bad("--type",
               "unknown probe type \"" + o.type + "\" (write_bw, send_bw, write_lat, send_lat)");
  b.params.type = *type;
  const bool bw = config::IsBandwidth(*type);
  b.params.size = bw ? 65536 : 2;
  if (!o.size.empty()) {
    auto v = Num(Param::kSize, "--size", o.size);
    if (!v.ok()) return v.error();
    b.params.size = *v;
  }
  if (o.mtu == "auto") {
    b.params.mtu = 0;
  } else {
    auto v = Num(Param::kMtu, "--mtu", o.mtu);
    if (!v.ok()) return v.error();
    b.params.mtu = *v;
  }
  struct {
    Param p;
    const char* flag;
    const std::string& text;
    uint32_t& field;
  } nums[] = {{Param::kQps, "--qps", o.qps, b.params.qps},
              {Param::kPostList, "--post-list", o.post_list, b.params.post_list},
              {Param::kCqMod, "--cq-mod", o.cq_mod, b.params.cq_moderation},
              {Param::kTxDepth, "--tx-depth", o.tx_depth, b.params.tx_depth},
              {Param::kInline, "--inline", o.inline_size, b.params.inline_size}};
  for (auto& n : nums) {
    auto v = Num(n.p, n.flag, n.text);
    if (!v.ok()) return v.error();
    n.field = *v;
  }
  if (!bw) b.params.tx_depth = 1;
  auto pin = ParsePinSpec(o.cpu);
  if (!pin.ok()) return Bad("--cpu", pin.error().message);
  b.pin = *pin;
  auto d = Dur("--duration", o.duration);
  if (!d.ok()) return d.error();
  if (d->count() <= 0 || *d > std::chrono::seconds(10))
    return Bad("--duration", "must be 1ms..10s");
  b.params.duration = *d;
  uint64_t iters = 0;
  auto [ptr, ec] =
      std::from_chars(o.iterations.data(), o.iterations.data() + o.iterations.size(), iters);
  if (ec != std::errc() || ptr != o.iterations.data() + o.iterations.size() || iters < 5 ||
      iters > 1000000) {
    return Bad("--iterations", "must be 5..1000000, got \"" + o.iterations + "\"");
  }
  b.params.iterations = static_cast<uint32_t>(iters);
  if (o.repeat < 1 || o.repeat > 100) return Bad("--repeat", "must be 1..100");
  b.repeat = o.repeat;
  if (!o.baseline.empty()) b.baseline = o.baseline;
  return b;
}

}  // namespace

CLI::App* AddSweepSubcommand(CLI::App& app, SweepOptions& o) {
  CLI::App* s = app.add_subcommand(
      "sweep",
      "Vary one probe parameter against a responder, repeat each point and report median, "
      "min-max and change vs a baseline (table, CSV, JSON, SVG)");
  s->fallthrough();
  s->add_option("--peer", o.peer, "Target HOST[:PORT]: any host running rxe_exporter (responder)");
  s->add_option("--vary", o.vary,
                "NAME=VALUES, repeatable (one sweep each): size=64,4KiB,1MiB  qps=1..8  "
                "post_list=1..32:x2  mtu=512..4096  cpu=none,0  type=write_bw,send_bw")
      ->allow_extra_args(false);
  s->add_option("--preset", o.preset, "article: the six experiments of the Soft-RoCE tuning study");
  s->add_option("--repeat", o.repeat, "Probes per point")->default_str("3");
  s->add_option("--baseline", o.baseline, "Baseline point (a value of the varied parameter)");
  s->add_option("--type", o.type, "Probe type: write_bw, send_bw, write_lat, send_lat")
      ->default_str("write_bw");
  s->add_option("--size", o.size, "Message size (default 64KiB bandwidth, 2 latency)");
  s->add_option("--mtu", o.mtu, "RoCE path MTU: 256..4096 or auto")->default_str("auto");
  s->add_option("--qps", o.qps, "QPs (perftest -q)")->default_str("1");
  s->add_option("--post-list", o.post_list, "WRs per post (perftest -l)")->default_str("1");
  s->add_option("--cq-mod", o.cq_mod, "CQ moderation (perftest --cq-mod)")->default_str("1");
  s->add_option("--tx-depth", o.tx_depth, "Send queue depth (perftest -t)")->default_str("128");
  s->add_option("--inline", o.inline_size, "Inline size (perftest -I)")->default_str("0");
  s->add_option("--cpu", o.cpu, "Pin the probing thread: none or a CPU list (0,2-3)")
      ->default_str("none");
  s->add_option("--duration", o.duration, "Bandwidth probe duration (perftest -D)")
      ->default_str("1s");
  s->add_option("--iterations", o.iterations, "Latency iterations (perftest -n)")
      ->default_str("1000");
  s->add_option("--device", o.device, "Local RDMA device (default: the one routing to the peer)");
  s->add_option("--gid-index", o.gid_index, "GID index (perftest -x; default: auto)");
  s->add_option("--psk-file", o.psk_file, "Pre-shared key file of the responder");
  s->add_option("--timeout", o.timeout, "Per-probe timeout on top of the duration")
      ->default_str("15s");
  s->add_option("--pin-cpu", o.pin_cpu, "CPU of the preset's pinning experiment")->default_str("0");
  s->add_option("--output-dir", o.output_dir, "Directory for CSV, JSON and SVG files")
      ->default_str("rxe-sweep");
  return s;
}

Result<SweepInvocation> ValidateSweepOptions(const SweepOptions& o) {
  SweepInvocation inv;
  auto peer = config::ParsePeerAddress(o.peer);
  if (!peer.ok()) return peer.error();
  peer->name = "sweep";
  inv.target.peer = *peer;
  inv.target_label = peer->address + ":" + std::to_string(peer->port);
  if (o.vary.empty() == o.preset.empty()) {
    return Bad("--vary/--preset", "give --vary NAME=VALUES (repeatable) or --preset article");
  }
  auto base = BaseFrom(o);
  if (!base.ok()) return base.error();
  if (!o.preset.empty()) {
    if (o.preset != "article")
      return Bad("--preset", "unknown preset \"" + o.preset + "\" (article)");
    if (o.pin_cpu < 0 || o.pin_cpu > 4095) return Bad("--pin-cpu", "must be 0..4095");
    inv.plans = ArticlePreset(base->repeat, o.pin_cpu);
    for (auto& plan : inv.plans) {  // --duration applies to the preset too (slow VMs)
      plan.held.duration = base->params.duration;
      for (auto& pt : plan.points) pt.params.duration = base->params.duration;
    }
  }
  for (const auto& spec : o.vary) {
    auto plan = ExpandVary(spec, *base);
    if (!plan.ok()) return plan.error();
    inv.plans.push_back(std::move(plan.value()));
  }
  for (const auto& plan : inv.plans) {
    if (auto st = ValidatePlan(plan, inv.target.max_buffer_bytes); !st.ok()) return st.error();
  }
  auto slack = Dur("--timeout", o.timeout);
  if (!slack.ok()) return slack.error();
  inv.target.slack = *slack;
  inv.target.device = o.device;
  if (o.gid_index >= 0) inv.target.gid_index = o.gid_index;
  if (!o.psk_file.empty()) {
    auto key = probes::auth::LoadPsk(o.psk_file);
    if (!key.ok()) return Bad("--psk-file", key.error().message);
    inv.target.psk = *key;
  }
  if (o.output_dir.empty()) return Bad("--output-dir", "must not be empty");
  inv.output_dir = o.output_dir;
  return inv;
}

}  // namespace rxe::sweep
