#include "sweep/sweep_plan.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "config/units.h"
#include "probes/rdma_session_params.h"
#include "sweep/sweep_values.h"

namespace rxe::sweep {
namespace {

constexpr size_t kMaxPoints = 256;

Error Bad(std::string msg) { return Error::Make(ErrorCode::kInvalidArgument, std::move(msg)); }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

/// The article's baseline value of a parameter (nullopt: first point).
std::optional<double> ArticleBaseline(Param p) {
  switch (p) {
    case Param::kSize:
      return 65536;
    case Param::kMtu:
      return 1024;  // the MTU table's "vs 1024" column
    case Param::kQps:
    case Param::kPostList:
    case Param::kCqMod:
      return 1;
    default:
      return std::nullopt;
  }
}

/// Expands one item (a value or a range) of a numeric parameter.
Status ExpandNumeric(Param p, std::string_view item, std::vector<uint64_t>& out) {
  const size_t dots = item.find("..");
  if (dots == std::string_view::npos) {
    auto v = ParseParamValue(p, item);
    if (!v.ok()) return v.error();
    out.push_back(*v);
    return Status::Ok();
  }
  std::string_view hi_text = item.substr(dots + 2);
  bool geometric = p == Param::kSize || p == Param::kMtu;
  uint64_t step = geometric ? 2 : 1;
  if (size_t colon = hi_text.find(':'); colon != std::string_view::npos) {
    std::string_view st = hi_text.substr(colon + 1);
    hi_text = hi_text.substr(0, colon);
    if (st.size() < 2 || (st[0] != 'x' && st[0] != '*' && st[0] != '+')) {
      return Bad("bad step \"" + std::string(st) + "\" in \"" + std::string(item) +
                 "\" (use :x2 for a factor or :+4 for an increment)");
    }
    geometric = st[0] != '+';
    auto [ptr, ec] = std::from_chars(st.data() + 1, st.data() + st.size(), step);
    if (ec != std::errc() || ptr != st.data() + st.size() || step == 0 || (geometric && step < 2)) {
      return Bad("bad step \"" + std::string(st) + "\" in \"" + std::string(item) + "\"");
    }
  }
  auto lo = ParseParamValue(p, item.substr(0, dots));
  if (!lo.ok()) return lo.error();
  auto hi = ParseParamValue(p, hi_text);
  if (!hi.ok()) return hi.error();
  if (*hi < *lo) return Bad("empty range \"" + std::string(item) + "\" (start > end)");
  if (geometric && *lo == 0)
    return Bad("range \"" + std::string(item) + "\": a factor step needs a start > 0");
  for (uint64_t v = *lo; v <= *hi; v = geometric ? v * step : v + step) {
    if (out.size() >= kMaxPoints) {
      return Bad("range \"" + std::string(item) + "\" gives more than 256 points");
    }
    auto ok = ParseParamValue(p, std::to_string(v));  // every member must be valid (e.g. MTU)
    if (!ok.ok()) return Bad("range \"" + std::string(item) + "\": " + ok.error().message);
    out.push_back(v);
  }
  return Status::Ok();
}

Point MakePoint(const Base& base) {
  Point pt;
  pt.params = base.params;
  pt.pin = base.pin;
  return pt;
}

}  // namespace

probes::SessionParams ArticleDefaults() {
  probes::SessionParams s;
  s.type = config::ProbeType::kWriteBw;
  s.size = 65536;
  s.mtu = 4096;
  s.qps = 1;
  s.post_list = 1;
  s.cq_moderation = 1;
  s.tx_depth = 128;
  s.inline_size = 0;
  s.duration = std::chrono::milliseconds(1000);
  return s;
}

Result<Plan> ExpandVary(std::string_view spec, const Base& base) {
  const size_t eq = spec.find('=');
  if (eq == std::string_view::npos) {
    return Bad("--vary wants NAME=VALUES, e.g. size=64,4KiB,64KiB or qps=1..8; got \"" +
               std::string(spec) + "\"");
  }
  auto param = ParseParamName(Trim(spec.substr(0, eq)));
  if (!param) {
    return Bad("--vary: unknown parameter \"" + std::string(spec.substr(0, eq)) +
               "\" (allowed: size, mtu, qps, post_list, cq_mod, tx_depth, inline, cpu, type)");
  }
  Plan plan;
  plan.param = *param;
  plan.name = std::string(ParamName(*param));
  plan.held = base.params;
  plan.held_pin = base.pin;
  plan.repeat = base.repeat;
  plan.metric = config::IsBandwidth(base.params.type) ? Metric::kBandwidth : Metric::kLatency;
  const auto items = Split(spec.substr(eq + 1), ',');
  for (std::string_view item : items) {
    if (item.empty())
      return Bad("--vary " + plan.name + ": empty value in \"" + std::string(spec) + "\"");
    if (plan.points.size() >= kMaxPoints) return Bad("--vary: more than 256 points");
    if (*param == Param::kCpu) {
      auto pin = ParsePinSpec(item);
      if (!pin.ok()) return Bad("--vary cpu: " + pin.error().message);
      Point pt = MakePoint(base);
      pt.pin = *pin;
      pt.label = pin->Label();
      pt.x = static_cast<double>(plan.points.size());
      plan.points.push_back(std::move(pt));
      continue;
    }
    if (*param == Param::kType) {
      auto t = ParseProbeTypeName(item);
      if (!t)
        return Bad("--vary type: unknown probe type \"" + std::string(item) +
                   "\" (allowed: write_bw, send_bw, write_lat, send_lat)");
      Point pt = MakePoint(base);
      pt.params.type = *t;
      if (!config::IsBandwidth(*t)) pt.params.tx_depth = 1;
      pt.label = config::ProbeTypeName(*t);
      pt.x = static_cast<double>(plan.points.size());
      plan.points.push_back(std::move(pt));
      continue;
    }
    std::vector<uint64_t> values;
    if (auto st = ExpandNumeric(*param, item, values); !st.ok()) {
      return Bad("--vary " + plan.name + ": " + st.error().message);
    }
    for (uint64_t v : values) {
      Point pt = MakePoint(base);
      ApplyValue(*param, v, pt.params);
      pt.label = *param == Param::kSize ? SizeLabel(v) : std::to_string(v);
      pt.x = static_cast<double>(v);
      plan.points.push_back(std::move(pt));
    }
  }
  if (plan.points.size() > kMaxPoints) return Bad("--vary: more than 256 points");
  if (*param == Param::kType) {
    const bool bw = config::IsBandwidth(plan.points.front().params.type);
    for (const auto& pt : plan.points) {
      if (config::IsBandwidth(pt.params.type) != bw) {
        return Bad(
            "--vary type: mix of bandwidth and latency types (Gb/s and µs cannot share a table)");
      }
    }
    plan.metric = bw ? Metric::kBandwidth : Metric::kLatency;
  }
  std::set<std::string> seen;
  for (const auto& pt : plan.points) {
    if (!seen.insert(pt.label).second)
      return Bad("--vary " + plan.name + ": duplicate value " + pt.label);
  }
  auto baseline = FindBaseline(plan, base.baseline, ArticleBaseline(*param));
  if (!baseline.ok()) return baseline.error();
  plan.baseline = *baseline;
  plan.title =
      std::string(ParamTitle(*param)) + " (" + config::ProbeTypeName(base.params.type) + ")";
  return plan;
}

std::vector<Plan> ArticlePreset(int repeat, int pin_cpu) {
  struct Exp {
    const char* name;
    const char* spec;
    uint32_t qps;
    const char* baseline;
  };
  const std::string cpu_spec = "cpu=none," + std::to_string(pin_cpu);
  const Exp exps[] = {
      {"01-size", "size=64,512,4KiB,16KiB,64KiB,256KiB,1MiB", 1, "64KiB"},
      {"02-mtu", "mtu=512,1024,2048,4096", 1, "1024"},
      {"03-qps", "qps=1,2,4,8", 1, "1"},
      {"04-post_list", "post_list=1,4,8,16,32", 1, "1"},
      {"05-cq_mod", "cq_mod=1,4,8,16,32", 2, "1"},
      {"06-cpu", cpu_spec.c_str(), 2, "none"},
  };
  std::vector<Plan> out;
  for (const Exp& e : exps) {
    Base base;
    base.params = ArticleDefaults();
    base.params.qps = e.qps;
    base.repeat = repeat;
    base.baseline = e.baseline;
    auto plan = ExpandVary(e.spec, base);
    if (!plan.ok()) continue;  // cannot happen: the specs are constants (tested)
    plan->name = e.name;
    out.push_back(std::move(plan.value()));
  }
  return out;
}

Status ValidatePlan(const Plan& plan, uint64_t max_buffer_bytes) {
  for (const auto& pt : plan.points) {
    auto shape = probes::ShapeSession(pt.params, probes::Role::kClient, max_buffer_bytes);
    if (auto* msg = std::get_if<std::string>(&shape)) {
      return Bad("sweep " + plan.name + ", point " + pt.label + ": " + *msg);
    }
  }
  return Status::Ok();
}

std::string HeldSummary(const Plan& plan) {
  const auto& p = plan.held;
  const bool bw = config::IsBandwidth(p.type);
  std::string out;
  auto add = [&](Param which, const std::string& text) {
    if (which == plan.param) return;
    if (!out.empty()) out += ' ';
    out += std::string(ParamName(which)) + "=" + text;
  };
  add(Param::kType, config::ProbeTypeName(p.type));
  add(Param::kSize, SizeLabel(p.size));
  add(Param::kMtu, p.mtu == 0 ? "auto" : std::to_string(p.mtu));
  if (bw) {
    add(Param::kQps, std::to_string(p.qps));
    add(Param::kPostList, std::to_string(p.post_list));
    add(Param::kCqMod, std::to_string(p.cq_moderation));
    add(Param::kTxDepth, std::to_string(p.tx_depth));
  }
  add(Param::kInline, std::to_string(p.inline_size));
  add(Param::kCpu, plan.held_pin.Label());
  out += bw ? " duration=" + config::FormatDuration(p.duration)
            : " iterations=" + std::to_string(p.iterations);
  return out;
}

}  // namespace rxe::sweep
