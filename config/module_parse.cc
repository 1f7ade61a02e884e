// modules: per-module fields, per-type applicability, defaults and cross-field rules.
#include <algorithm>
#include <optional>

#include "config/mesh_parse.h"
#include "config/parse_internal.h"
#include "config/rules.h"
#include "config/units.h"
#include "config/yaml_fields.h"

namespace rxe::config {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr uint64_t kMaxMessageBytes = 8ULL << 20;  // rdma_rxe on Linux 6.1
constexpr uint64_t kMaxInline = 512;               // rdma_rxe max inline data
constexpr uint64_t kMaxDepth = 16384;              // rdma_rxe max WRs per QP
constexpr uint32_t kDefaultBandwidthSize = 65536;  // perftest ib_*_bw -s default
constexpr uint32_t kDefaultLatencySize = 2;        // perftest ib_*_lat -s default

const std::vector<std::string> kModuleKeys{
    "type", "interval", "timeout",   "peers",         "device",   "size",       "mtu",
    "qps",  "post_list", "cq_moderation", "tx_depth", "inline_size", "duration", "iterations",
    "gid_index", "qp_timeout", "use_event", "aggregate_by",
    "subset"};  // issue 15 mesh: config/mesh_parse.cc
const std::vector<std::string> kBandwidthOnly{"qps", "post_list", "cq_moderation", "tx_depth",
                                              "duration"};
const std::vector<std::string> kLatencyOnly{"iterations"};
const std::vector<std::string> kUdPingOnly{"aggregate_by"};
// The RC session keys: a ud_ping module has no QP set-up, MR or perftest loop.
const std::vector<std::string> kRcOnly{"mtu", "qps", "post_list", "cq_moderation", "tx_depth",
                                       "inline_size", "duration", "iterations", "gid_index",
                                       "qp_timeout"};
const std::vector<std::string> kTypes{"write_bw", "send_bw", "write_lat", "send_lat", "ud_ping"};

bool Contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

ProbeType TypeFromName(std::string_view s) {
  if (s == "send_bw") return ProbeType::kSendBw;
  if (s == "write_lat") return ProbeType::kWriteLat;
  if (s == "send_lat") return ProbeType::kSendLat;
  if (s == "ud_ping") return ProbeType::kUdPing;
  return ProbeType::kWriteBw;
}

// "auto" (-> nullopt) or an integer accepted by `valid`; `allowed` describes both.
template <typename T>
Got GetAutoOr(const MapReader& r, std::string_view key, bool (*valid)(uint64_t),
              const std::string& allowed, std::optional<T>* out) {
  const auto* e = r.Find(key);
  if (!e) return Got::kAbsent;
  const std::string path = r.PathOf(key);
  std::string text;
  if (!ScalarText(e->value, path, r.sink(), allowed, &text)) return Got::kBad;
  if (text == "auto") {
    out->reset();
    return Got::kOk;
  }
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  const bool digits =
      !text.empty() && text.size() <= 9 && std::all_of(text.begin(), text.end(), is_digit);
  if (!digits || !valid(std::stoull(text))) {
    const bool numeric = !text.empty() && (text.front() == '-' || is_digit(text.front()));
    r.sink().Error(e->value, path,
                   "must be " + allowed + ", got " + (numeric ? text : "\"" + text + "\""));
    return Got::kBad;
  }
  *out = static_cast<T>(std::stoull(text));
  return Got::kOk;
}

bool ValidMtu(uint64_t v) { return v == 256 || v == 512 || v == 1024 || v == 2048 || v == 4096; }
bool ValidGidIndex(uint64_t v) { return v <= 1023; }

// The node to blame for a cross-field rule: the first of `keys` that was given.
const YAML::Node& Blame(const MapReader& r, std::initializer_list<std::string_view> keys) {
  for (auto k : keys) {
    if (const auto* e = r.Find(k)) return e->value;
  }
  return r.node();
}

void ParsePeersAndDevice(const MapReader& r, Module* m, std::vector<PeerRef>* refs);
void ParseRcKeys(const MapReader& r, Module* m, bool bw, bool typed, Got interval_got,
                 Got timeout_got);

// ud_ping: the continuous UD mesh (docs/configuration.md "ud_ping modules").
void ParseUdPing(const MapReader& r, Module* m, std::vector<PeerRef>* refs) {
  const Sink& sink = r.sink();
  m->interval = kUdPingDefaultInterval;
  m->timeout = kUdPingDefaultTimeout;
  m->size = kUdPingDefaultSize;
  const Got interval_got =
      GetDuration(r, "interval", milliseconds(100), seconds(24 * 3600), &m->interval);
  const Got timeout_got = GetDuration(r, "timeout", milliseconds(10), seconds(3600), &m->timeout);
  (void)GetBytesAs(r, "size", kUdPingMinSize, kUdPingMaxSize, &m->size);
  ParsePeersAndDevice(r, m, refs);
  if (GetString(r, "aggregate_by", &m->aggregate_by) == Got::kOk &&
      (!IsValidLabelName(m->aggregate_by) || IsReservedLabelName(m->aggregate_by))) {
    sink.Error(r.Find("aggregate_by")->value, r.PathOf("aggregate_by"),
               "invalid label name \"" + m->aggregate_by +
                   "\"; must be a peer label name ([a-zA-Z_][a-zA-Z0-9_]*, not one the exporter "
                   "sets such as peer or module), e.g. rack");
    m->aggregate_by.clear();
  }
  if (interval_got != Got::kBad && timeout_got != Got::kBad && m->timeout >= m->interval) {
    if (timeout_got == Got::kOk) {
      sink.Error(r.Find("timeout")->value, r.PathOf("timeout"),
                 "must be less than interval (" + FormatDuration(m->interval) + "), got " +
                     FormatDuration(m->timeout));
    } else {
      sink.Error(r.Find("interval")->value, r.PathOf("interval"),
                 "must be greater than timeout (" + FormatDuration(m->timeout) + "), got " +
                     FormatDuration(m->interval));
    }
  }
}

void ParseModule(const MapReader& r, Module* m, std::vector<PeerRef>* refs) {
  const Sink& sink = r.sink();
  std::string type_name;
  const Got type_got = GetEnum(r, "type", kTypes, &type_name);
  if (type_got == Got::kAbsent) r.Missing("type", "must be one of " + JoinList(kTypes));
  const bool typed = type_got == Got::kOk;
  if (typed) m->type = TypeFromName(type_name);
  const bool bw = IsBandwidth(m->type);

  // Keys that do not apply to this type are errors, not silently ignored.
  const auto* use_event = r.Find("use_event");
  if (use_event != nullptr && typed && m->type != ProbeType::kSendLat) {
    sink.Error(use_event->key_node, r.PathOf("use_event"),
               "only applies to send_lat modules (perftest -e); remove it from this " + type_name +
                   " module");
  }
  if (typed && m->type == ProbeType::kUdPing) {
    for (const auto& e : r.entries()) {
      if (Contains(kRcOnly, e.key)) {
        sink.Error(e.key_node, r.PathOf(e.key),
                   "only applies to RC probe modules (write_bw, send_bw, write_lat, send_lat); "
                   "remove it from this ud_ping module (its keys: type, interval, timeout, size, "
                   "peers, device, aggregate_by)");
      }
    }
    ParseUdPing(r, m, refs);
    return;
  }
  if (typed) {
    for (const auto& e : r.entries()) {
      if (Contains(kUdPingOnly, e.key)) {
        sink.Error(e.key_node, r.PathOf(e.key),
                   "only applies to ud_ping modules; remove it from this " + type_name + " module");
      } else if (bw && Contains(kLatencyOnly, e.key)) {
        sink.Error(e.key_node, r.PathOf(e.key),
                   "only applies to latency modules (write_lat, send_lat); remove it from this " +
                       type_name + " module");
      } else if (!bw && Contains(kBandwidthOnly, e.key)) {
        sink.Error(e.key_node, r.PathOf(e.key),
                   "only applies to bandwidth modules (write_bw, send_bw); remove it from this " +
                       type_name + " module");
      }
    }
  }

  const Got interval_got = GetDuration(r, "interval", seconds(1), seconds(24 * 3600), &m->interval);
  const Got timeout_got = GetDuration(r, "timeout", milliseconds(100), seconds(3600), &m->timeout);
  ParsePeersAndDevice(r, m, refs);
  ParseRcKeys(r, m, bw, typed, interval_got, timeout_got);
}

void ParsePeersAndDevice(const MapReader& r, Module* m, std::vector<PeerRef>* refs) {
  const Sink& sink = r.sink();
  std::vector<std::string> peers;
  std::vector<YAML::Node> peer_nodes;
  if (GetStringList(r, "peers", &peers, &peer_nodes) == Got::kOk) {
    const std::string path = r.PathOf("peers");
    for (size_t i = 0; i < peers.size(); ++i) {
      if (std::find(peers.begin(), peers.begin() + i, peers[i]) != peers.begin() + i) {
        sink.Error(peer_nodes[i], IndexPath(path, i),
                   "duplicate peer \"" + peers[i] + "\"; list each peer once");
        continue;
      }
      m->peers.push_back(peers[i]);
      refs->push_back({peers[i], peer_nodes[i], IndexPath(path, i)});
    }
  }

  if (GetString(r, "device", &m->device) == Got::kOk && !m->device.empty() &&
      !IsValidDeviceName(m->device)) {
    sink.Error(r.Find("device")->value, r.PathOf("device"),
               "invalid device name \"" + m->device +
                   "\"; must be an RDMA device name like rxe0 ([a-zA-Z0-9_.-], at most 63 "
                   "characters) or empty for the device that routes to the peer");
    m->device.clear();
  }
}

void ParseRcKeys(const MapReader& r, Module* m, bool bw, bool typed, Got interval_got,
                 Got timeout_got) {
  const Sink& sink = r.sink();
  if (GetBytesAs(r, "size", 1, kMaxMessageBytes, &m->size) != Got::kOk) {
    m->size = bw ? kDefaultBandwidthSize : kDefaultLatencySize;
  }
  (void)GetAutoOr(r, "mtu", ValidMtu, "auto, 256, 512, 1024, 2048 or 4096", &m->mtu);
  (void)GetAutoOr(r, "gid_index", ValidGidIndex, "auto or an integer between 0 and 1023",
                  &m->gid_index);
  (void)GetBytesAs(r, "inline_size", 0, kMaxInline, &m->inline_size);
  (void)GetUintAs(r, "qp_timeout", 0, 31, &m->qp_timeout);  // 5 bits (IBTA); perftest -u
  ParseSubset(r, m);  // issue 15 mesh: config/mesh_parse.cc

  if (!bw) {
    if (typed) (void)GetUintAs(r, "iterations", 1, 1000000, &m->iterations);
    if (m->type == ProbeType::kSendLat) (void)GetBool(r, "use_event", &m->use_event);
    m->tx_depth = 1;  // one message in flight: the ping-pong of ib_*_lat
    m->qps = 1;
    m->post_list = 1;
    m->cq_moderation = 1;
  } else if (typed) {
    (void)GetUintAs(r, "qps", 1, 64, &m->qps);
    const Got depth_got = GetUintAs(r, "tx_depth", 1, kMaxDepth, &m->tx_depth);
    const Got list_got = GetUintAs(r, "post_list", 1, kMaxDepth, &m->post_list);
    const Got cq_got = GetUintAs(r, "cq_moderation", 1, kMaxDepth, &m->cq_moderation);
    const Got duration_got =
        GetDuration(r, "duration", milliseconds(100), seconds(10), &m->duration);
    // perftest: without -Q, a post list of N moderates completions every N.
    if (list_got == Got::kOk && cq_got == Got::kAbsent) m->cq_moderation = m->post_list;
    const bool depth_ok = depth_got != Got::kBad;
    if (list_got == Got::kOk && depth_ok && m->post_list > m->tx_depth) {
      sink.Error(r.Find("post_list")->value, r.PathOf("post_list"),
                 "must be at most tx_depth (" + std::to_string(m->tx_depth) + "), got " +
                     std::to_string(m->post_list));
    } else if (cq_got == Got::kOk && depth_ok && m->cq_moderation > m->tx_depth) {
      sink.Error(r.Find("cq_moderation")->value, r.PathOf("cq_moderation"),
                 "must be at most tx_depth (" + std::to_string(m->tx_depth) + "), got " +
                     std::to_string(m->cq_moderation));
    } else if (cq_got == Got::kOk && list_got != Got::kBad && m->post_list > 1 &&
               m->post_list % m->cq_moderation) {
      // perftest checks this only for post lists (> 1): -Q 100 with -l 1 is its default.
      sink.Error(r.Find("cq_moderation")->value, r.PathOf("cq_moderation"),
                 "must divide post_list (" + std::to_string(m->post_list) + "), got " +
                     std::to_string(m->cq_moderation));
    }
    if (duration_got != Got::kBad && timeout_got != Got::kBad && m->timeout <= m->duration) {
      if (timeout_got == Got::kOk) {
        sink.Error(r.Find("timeout")->value, r.PathOf("timeout"),
                   "must be greater than duration (" + FormatDuration(m->duration) + "), got " +
                       FormatDuration(m->timeout));
      } else {
        sink.Error(Blame(r, {"duration"}), r.PathOf("duration"),
                   "must be less than timeout (" + FormatDuration(m->timeout) + "), got " +
                       FormatDuration(m->duration));
      }
    }
  }
  if (interval_got != Got::kBad && timeout_got != Got::kBad && m->interval < m->timeout) {
    if (interval_got == Got::kOk) {
      sink.Error(r.Find("interval")->value, r.PathOf("interval"),
                 "must be at least timeout (" + FormatDuration(m->timeout) + "), got " +
                     FormatDuration(m->interval));
    } else {
      sink.Error(Blame(r, {"timeout"}), r.PathOf("timeout"),
                 "must be at most interval (" + FormatDuration(m->interval) + "), got " +
                     FormatDuration(m->timeout));
    }
  }
}

}  // namespace

void ParseModules(const YAML::Node& node, const Sink& sink, std::map<std::string, Module>* out,
                  std::vector<PeerRef>* refs) {
  MapReader modules(node, "modules", sink, nullptr, "a map of module names to modules");
  if (!modules.ok()) return;
  const Module* first_ud = nullptr;  // std::map nodes stay put
  for (const auto& entry : modules.entries()) {
    const std::string path = modules.PathOf(entry.key);
    if (!IsValidName(entry.key)) {
      sink.Error(entry.key_node, path, "invalid module name; must match [a-zA-Z0-9_.-]+");
      continue;
    }
    if (entry.value.IsNull()) {
      sink.Error(entry.key_node, path,
                 "empty module; must be a map with at least a type (" + JoinList(kTypes) + ")");
      continue;
    }
    MapReader r(entry.value, path, sink, &kModuleKeys);
    if (!r.ok()) continue;
    Module m;
    m.name = entry.key;
    ParseModule(r, &m, refs);
    if (m.type == ProbeType::kUdPing) {
      // One UD endpoint and one ping schedule per device serve every ud_ping module.
      auto timing = [](const Module& u) {
        return "interval " + FormatDuration(u.interval) + ", timeout " +
               FormatDuration(u.timeout) + ", size " + std::to_string(u.size);
      };
      if (first_ud == nullptr) {
        first_ud = &(*out)[entry.key];
      } else if (timing(*first_ud) != timing(m)) {
        sink.Error(entry.key_node, path,
                   "ud_ping modules share one UD endpoint and ping schedule per device, so they "
                   "must have the same interval, timeout and size: module \"" + first_ud->name +
                       "\" has " + timing(*first_ud) + ", this one " + timing(m));
      }
    }
    (*out)[entry.key] = std::move(m);
  }
}

}  // namespace rxe::config
