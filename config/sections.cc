// The simple top-level sections: devices, collectors, responder, prober, peer_files.
#include <algorithm>

#include "config/mesh_parse.h"
#include "config/parse_internal.h"
#include "config/rules.h"
#include "config/yaml_fields.h"

namespace rxe::config {
namespace {

using std::chrono::seconds;

constexpr uint64_t kKiB = 1ULL << 10;
constexpr uint64_t kMiB = 1ULL << 20;
constexpr uint64_t kGiB = 1ULL << 30;

void CheckDeviceRegex(const MapReader& r, std::string_view key, bool allow_empty,
                      std::string* out) {
  std::string re;
  if (GetString(r, key, &re) != Got::kOk) return;
  const auto* e = r.Find(key);
  if (re.empty() && !allow_empty) {
    r.sink().Error(e->value, r.PathOf(key),
                   "must not be empty (it would match no device); use \".*\" for all devices");
    return;
  }
  if (auto err = CheckRegex(re)) {
    r.sink().Error(e->value, r.PathOf(key),
                   "invalid regular expression \"" + re + "\" (" + *err +
                       "); must be an ECMAScript regular expression");
    return;
  }
  *out = re;
}

}  // namespace

void ParseDevices(const YAML::Node& node, const Sink& sink, DeviceFilter* out) {
  static const std::vector<std::string> kKeys{"include", "exclude"};
  MapReader r(node, "devices", sink, &kKeys);
  if (!r.ok()) return;
  CheckDeviceRegex(r, "include", false, &out->include);
  CheckDeviceRegex(r, "exclude", true, &out->exclude);
}

void ParseCollectors(const YAML::Node& node, const Sink& sink, CollectorsConfig* out) {
  static const std::vector<std::string> kKeys{"rdma_netlink",      "sysfs", "rtnetlink", "host",
                                              "hw_counter_source", "max_gids_per_port"};
  MapReader r(node, "collectors", sink, &kKeys);
  if (!r.ok()) return;
  (void)GetBool(r, "rdma_netlink", &out->rdma_netlink);
  (void)GetBool(r, "sysfs", &out->sysfs);
  (void)GetBool(r, "rtnetlink", &out->rtnetlink);
  (void)GetBool(r, "host", &out->host);
  std::string source;
  if (GetEnum(r, "hw_counter_source", {"auto", "netlink", "sysfs"}, &source) == Got::kOk) {
    out->hw_counter_source = source == "netlink" ? HwCounterSource::kNetlink
                             : source == "sysfs" ? HwCounterSource::kSysfs
                                                 : HwCounterSource::kAuto;
  }
  (void)GetUintAs(r, "max_gids_per_port", 0, 1024, &out->max_gids_per_port);
}

void ParseResponder(const YAML::Node& node, const Sink& sink, ResponderConfig* out) {
  static const std::vector<std::string> kKeys{
      "enabled",          "listen_addresses",     "allowed_cidrs",    "psk_file",
      "max_sessions",     "max_buffer_bytes",     "max_session_duration",
      "max_message_bytes"};
  MapReader r(node, "responder", sink, &kKeys);
  if (!r.ok()) return;
  (void)GetBool(r, "enabled", &out->enabled);

  std::vector<std::string> addrs;
  std::vector<YAML::Node> nodes;
  if (GetStringList(r, "listen_addresses", &addrs, &nodes) == Got::kOk) {
    const std::string path = r.PathOf("listen_addresses");
    bool ok = true;
    for (size_t i = 0; i < addrs.size(); ++i) {
      if (auto err = CheckListenAddress(addrs[i])) {
        sink.Error(nodes[i], IndexPath(path, i),
                   "invalid listen address \"" + addrs[i] + "\" (" + *err +
                       "); must be host:port, :port or [ipv6]:port");
        ok = false;
      } else if (std::find(addrs.begin(), addrs.begin() + i, addrs[i]) != addrs.begin() + i) {
        sink.Error(nodes[i], IndexPath(path, i),
                   "duplicate listen address \"" + addrs[i] + "\"; each address may appear once");
        ok = false;
      }
    }
    if (addrs.empty() && out->enabled) {
      sink.Error(r.Find("listen_addresses")->value, path,
                 "must not be empty while the responder is enabled; give at least one address "
                 "like \":19792\" or set responder.enabled to false");
      ok = false;
    }
    if (ok) out->listen_addresses = addrs;
  }

  std::vector<std::string> cidrs;
  if (GetStringList(r, "allowed_cidrs", &cidrs, &nodes) == Got::kOk) {
    bool ok = true;
    for (size_t i = 0; i < cidrs.size(); ++i) {
      if (auto err = CheckCidr(cidrs[i])) {
        sink.Error(nodes[i], IndexPath(r.PathOf("allowed_cidrs"), i),
                   "invalid CIDR \"" + cidrs[i] + "\" (" + *err +
                       "); must be ADDRESS/PREFIX like 10.0.0.0/8 or fd00::/64");
        ok = false;
      }
    }
    if (ok) out->allowed_cidrs = cidrs;
  }
  (void)GetString(r, "psk_file", &out->psk_file);
  (void)GetUintAs(r, "max_sessions", 1, 256, &out->max_sessions);
  (void)GetBytesAs(r, "max_buffer_bytes", 4 * kKiB, kGiB, &out->max_buffer_bytes);
  (void)GetDuration(r, "max_session_duration", seconds(1), seconds(3600),
                    &out->max_session_duration);
  (void)GetBytesAs(r, "max_message_bytes", 512, kMiB, &out->max_message_bytes);
}

void ParseProber(const YAML::Node& node, const Sink& sink, ProberConfig* out) {
  static const std::vector<std::string> kKeys{"max_concurrent", "max_bandwidth_per_device",
                                              "byte_budget_per_second", "psk_file",
                                              "history_per_pair", "max_pairs",
                                              "self"};
  MapReader r(node, "prober", sink, &kKeys);
  if (!r.ok()) return;
  (void)GetUintAs(r, "max_concurrent", 1, 64, &out->max_concurrent);
  (void)GetUintAs(r, "max_bandwidth_per_device", 1, 16, &out->max_bandwidth_per_device);
  (void)GetBytesAs(r, "byte_budget_per_second", 0, 100 * kGiB, &out->byte_budget_per_second);
  (void)GetString(r, "psk_file", &out->psk_file);
  (void)GetUintAs(r, "history_per_pair", 0, 1000, &out->history_per_pair);
  (void)GetUintAs(r, "max_pairs", 1, kMaxMaxPairs, &out->max_pairs);
  ParseSelf(r, &out->self);  // issue 15, config/mesh_parse.cc
}

void ParsePeerFilePatterns(const YAML::Node& node, const Sink& sink,
                           std::vector<std::string>* out) {
  if (node.IsNull()) return;
  if (!node.IsSequence()) {
    sink.Error(node, "peer_files", "must be a list of file names or globs, got " + Describe(node));
    return;
  }
  size_t i = 0;
  for (const YAML::Node& item : node) {
    const std::string path = IndexPath("peer_files", i++);
    std::string pattern;
    if (!ScalarText(item, path, sink, "a file name or glob", &pattern)) continue;
    const auto ends_with = [&](std::string_view suffix) {
      return pattern.size() >= suffix.size() &&
             pattern.compare(pattern.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (!ends_with(".yml") && !ends_with(".yaml") && !ends_with(".json")) {
      sink.Error(item, path,
                 "\"" + pattern + "\" does not end in .yml, .yaml or .json; must be a file name "
                 "or glob of YAML or JSON files like peers.d/*.yml or file_sd/*.json");
      continue;
    }
    out->push_back(pattern);
  }
}

}  // namespace rxe::config
