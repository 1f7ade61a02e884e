#include "sweep/sweep_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "config/units.h"

namespace rxe::sweep {
namespace {

Error Bad(std::string msg) { return Error::Make(ErrorCode::kInvalidArgument, std::move(msg)); }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<uint64_t> Uint(std::string_view s) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

/// Sizes: config::ParseBytes forms plus K/KB/M/MB/G/GB as binary shorthands.
std::optional<uint64_t> Bytes(std::string_view s) {
  if (auto v = config::ParseBytes(s)) return v;
  std::string t(s);
  for (auto [from, to] : {std::pair{"KB", "KiB"},
                          {"MB", "MiB"},
                          {"GB", "GiB"},
                          {"kB", "KiB"},
                          {"K", "KiB"},
                          {"k", "KiB"},
                          {"M", "MiB"},
                          {"G", "GiB"}}) {
    const std::string f(from);
    if (t.size() > f.size() && t.compare(t.size() - f.size(), f.size(), f) == 0) {
      return config::ParseBytes(t.substr(0, t.size() - f.size()) + to);
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view ParamName(Param p) {
  switch (p) {
    case Param::kSize:
      return "size";
    case Param::kMtu:
      return "mtu";
    case Param::kQps:
      return "qps";
    case Param::kPostList:
      return "post_list";
    case Param::kCqMod:
      return "cq_mod";
    case Param::kTxDepth:
      return "tx_depth";
    case Param::kInline:
      return "inline";
    case Param::kCpu:
      return "cpu";
    case Param::kType:
      return "type";
  }
  return "size";
}

std::optional<Param> ParseParamName(std::string_view name) {
  const std::string n = Lower(name);
  if (n == "size" || n == "s" || n == "message_size") return Param::kSize;
  if (n == "mtu" || n == "m") return Param::kMtu;
  if (n == "qps" || n == "qp" || n == "q") return Param::kQps;
  if (n == "post_list" || n == "post-list" || n == "l") return Param::kPostList;
  if (n == "cq_mod" || n == "cq-mod" || n == "cq_moderation") return Param::kCqMod;
  if (n == "tx_depth" || n == "tx-depth" || n == "t") return Param::kTxDepth;
  if (n == "inline" || n == "inline_size" || n == "i") return Param::kInline;
  if (n == "cpu" || n == "pin" || n == "cpus") return Param::kCpu;
  if (n == "type" || n == "probe") return Param::kType;
  return std::nullopt;
}

std::string_view ParamTitle(Param p) {
  switch (p) {
    case Param::kSize:
      return "Message size";
    case Param::kMtu:
      return "RoCE MTU";
    case Param::kQps:
      return "QPs";
    case Param::kPostList:
      return "Post list";
    case Param::kCqMod:
      return "CQ moderation";
    case Param::kTxDepth:
      return "TX depth";
    case Param::kInline:
      return "Inline size";
    case Param::kCpu:
      return "CPU pinning";
    case Param::kType:
      return "Probe type";
  }
  return "";
}

std::string_view ParamUnit(Param p) {
  switch (p) {
    case Param::kSize:
    case Param::kMtu:
    case Param::kInline:
      return "bytes";
    case Param::kQps:
      return "QPs";
    case Param::kPostList:
    case Param::kCqMod:
    case Param::kTxDepth:
      return "WRs";
    default:
      return "";
  }
}

Result<uint64_t> ParseParamValue(Param p, std::string_view text) {
  const std::string t(text);
  std::optional<uint64_t> v = p == Param::kSize || p == Param::kInline ? Bytes(text) : Uint(text);
  if (!v) return Bad("bad " + std::string(ParamName(p)) + " value \"" + t + "\"");
  auto range = [&](uint64_t lo, uint64_t hi) -> Result<uint64_t> {
    if (*v < lo || *v > hi) {
      return Bad(std::string(ParamName(p)) + " " + t + " out of range " + std::to_string(lo) +
                 ".." + std::to_string(hi));
    }
    return *v;
  };
  switch (p) {
    case Param::kSize:
      return range(1, 16u << 20);
    case Param::kMtu:
      if (*v != 256 && *v != 512 && *v != 1024 && *v != 2048 && *v != 4096) {
        return Bad("mtu " + t + " is not a RoCE MTU (256, 512, 1024, 2048 or 4096)");
      }
      return *v;
    case Param::kQps:
      return range(1, 64);
    case Param::kPostList:
    case Param::kCqMod:
    case Param::kTxDepth:
      return range(1, 8192);
    case Param::kInline:
      return range(0, 512);
    default:
      return Bad("parameter " + std::string(ParamName(p)) + " is not numeric");
  }
}

void ApplyValue(Param p, uint64_t value, probes::SessionParams& params) {
  const auto v = static_cast<uint32_t>(value);
  switch (p) {
    case Param::kSize:
      params.size = v;
      break;
    case Param::kMtu:
      params.mtu = v;
      break;
    case Param::kQps:
      params.qps = v;
      break;
    case Param::kPostList:
      params.post_list = v;
      params.cq_moderation = v;
      break;
    case Param::kCqMod:
      params.cq_moderation = v;
      break;
    case Param::kTxDepth:
      params.tx_depth = v;
      break;
    case Param::kInline:
      params.inline_size = v;
      break;
    default:
      break;
  }
}

std::optional<config::ProbeType> ParseProbeTypeName(std::string_view text) {
  std::string n = Lower(text);
  if (n.rfind("ib_", 0) == 0) n = n.substr(3);
  if (n == "write_bw") return config::ProbeType::kWriteBw;
  if (n == "send_bw") return config::ProbeType::kSendBw;
  if (n == "write_lat") return config::ProbeType::kWriteLat;
  if (n == "send_lat") return config::ProbeType::kSendLat;
  return std::nullopt;
}

std::string PinSpec::Label() const {
  if (cpus.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

Result<PinSpec> ParsePinSpec(std::string_view text) {
  PinSpec pin;
  if (Lower(text) == "none" || Lower(text) == "no") return pin;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '+' && text[i] != ',') continue;
    std::string_view part = text.substr(start, i - start);
    start = i + 1;
    const size_t dash = part.find('-');
    auto lo = Uint(part.substr(0, dash));
    auto hi = dash == std::string_view::npos ? lo : Uint(part.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || *hi >= 4096) {
      return Bad("bad CPU list \"" + std::string(text) + "\" (use none, 0, 2-3 or 0+2)");
    }
    for (uint64_t c = *lo; c <= *hi; ++c) pin.cpus.push_back(static_cast<int>(c));
  }
  std::sort(pin.cpus.begin(), pin.cpus.end());
  pin.cpus.erase(std::unique(pin.cpus.begin(), pin.cpus.end()), pin.cpus.end());
  return pin;
}

std::string SizeLabel(uint64_t bytes) {
  std::string s = config::FormatBytes(bytes);
  if (s.find_first_not_of("0123456789") == std::string::npos) s += "B";
  return s;
}

Result<size_t> FindBaseline(const Plan& plan, const std::optional<std::string>& user,
                            std::optional<double> article) {
  auto by_label = [&](const std::string& label) -> std::optional<size_t> {
    for (size_t i = 0; i < plan.points.size(); ++i) {
      if (Lower(plan.points[i].label) == Lower(label)) return i;
    }
    return std::nullopt;
  };
  auto by_x = [&](double x) -> std::optional<size_t> {
    for (size_t i = 0; i < plan.points.size(); ++i) {
      if (plan.points[i].x == x) return i;
    }
    return std::nullopt;
  };
  const bool numeric = plan.param != Param::kCpu && plan.param != Param::kType;
  if (user) {
    if (auto i = by_label(*user)) return *i;
    if (plan.param == Param::kCpu) {
      if (auto pin = ParsePinSpec(*user); pin.ok()) {
        if (auto i = by_label(pin->Label())) return *i;
      }
    } else if (numeric) {
      if (auto v = ParseParamValue(plan.param, *user); v.ok()) {
        if (auto i = by_x(static_cast<double>(*v))) return *i;
      }
    }
    std::string labels;
    for (const auto& pt : plan.points) labels += (labels.empty() ? "" : ", ") + pt.label;
    return Bad("--baseline " + *user + " is not one of the " + std::string(ParamName(plan.param)) +
               " points (" + labels + ")");
  }
  if (plan.param == Param::kCpu) return by_label("none").value_or(0);
  if (article) return by_x(*article).value_or(0);
  return size_t{0};
}

}  // namespace rxe::sweep
