#include "config/file_sd.h"

#include <map>

#include "config/peer_address.h"
#include "config/rules.h"

namespace rxe::config {
namespace {

const std::vector<std::string> kGroupKeys{"targets", "labels"};
constexpr std::string_view kTargetForms =
    "must be \"host\", \"host:port\" or \"[ipv6]:port\" (port: the responder's control port, "
    "default 19792)";

// A string value: any scalar in YAML; in JSON only a quoted one (yaml-cpp tags quoted
// scalars "!", plain ones "?"), as Prometheus' JSON decoder accepts only strings there.
bool StringValue(const YAML::Node& node, std::string_view path, const Sink& sink, bool json,
                 std::string* out) {
  if (!ScalarText(node, path, sink, "a string", out)) return false;
  if (json && node.Tag() != "!") {
    sink.Error(node, path, "must be a string (in JSON: in double quotes), got " + *out);
    return false;
  }
  return true;
}

void ParseGroupLabels(const MapReader& group, bool json, std::map<std::string, std::string>* out) {
  const Sink& sink = group.sink();
  const auto* e = group.Find("labels");
  if (!e) return;
  MapReader labels(e->value, group.PathOf("labels"), sink, nullptr,
                   "a map of label names to string values");
  if (!labels.ok()) return;
  for (const auto& entry : labels.entries()) {
    const std::string path = labels.PathOf(entry.key);
    if (entry.key.rfind("__", 0) == 0) continue;  // Prometheus' meta labels (__address__, ...)
    if (!IsValidLabelName(entry.key)) {
      sink.Error(entry.key_node, path, "invalid label name; must match [a-zA-Z_][a-zA-Z0-9_]*");
      continue;
    }
    std::string value;
    if (!StringValue(entry.value, path, sink, json, &value)) continue;
    if (IsReservedLabelName(entry.key)) continue;  // e.g. job: for Prometheus, not a peer label
    (*out)[entry.key] = value;
  }
}

// One target into *out; false (error reported) if it is not a valid target.
bool ParseTarget(const YAML::Node& node, const std::string& path, bool json, const Sink& sink,
                 Peer* out) {
  std::string text;
  if (!StringValue(node, path, sink, json, &text)) return false;
  if (text.empty()) {
    sink.Error(node, path, "empty target; " + std::string(kTargetForms));
    return false;
  }
  auto parsed = ParseHostPort(text);
  std::string why;
  if (!parsed.ok()) {
    why = parsed.error().message;
  } else if (text.front() == '[' && parsed->address.find(':') == std::string::npos) {
    why = "brackets are for IPv6 addresses";
  } else if (auto err = CheckHost(parsed->address)) {
    why = *err;
  }
  if (!why.empty()) {
    sink.Error(node, path, "invalid target \"" + text + "\" (" + why + "); " +
                               std::string(kTargetForms));
    return false;
  }
  *out = *parsed;
  out->name = text;
  return true;
}

}  // namespace

bool IsFileSdList(const YAML::Node& list) {
  if (!list.IsSequence()) return false;
  for (const YAML::Node& item : list) {
    if (!item.IsMap()) continue;
    bool targets = false;
    bool peer = false;
    for (const auto& kv : item) {
      if (!kv.first.IsScalar()) continue;
      const std::string& key = kv.first.Scalar();
      targets = targets || key == "targets";
      peer = peer || key == "name" || key == "address";
    }
    if (peer) return false;
    if (targets) return true;
  }
  return false;
}

void ParseFileSdList(const YAML::Node& list, bool json, const Sink& sink, std::vector<Peer>* out,
                     std::vector<PeerName>* names) {
  std::map<std::string, int> first_line;  // target -> 1-based line of first definition
  size_t i = 0;
  for (const YAML::Node& item : list) {
    const std::string item_path = IndexPath("", i++);
    if (item.IsNull()) {
      sink.Error(item, item_path,
                 "must be a target group {targets: [...], labels: {...}}, got null");
      continue;
    }
    MapReader group(item, item_path, sink, &kGroupKeys,
                    "a target group {targets: [...], labels: {...}}");
    if (!group.ok()) continue;
    std::map<std::string, std::string> labels;
    ParseGroupLabels(group, json, &labels);
    const auto* targets = group.Find("targets");
    if (!targets) {
      group.Missing("targets", "a list of targets; each " + std::string(kTargetForms));
      continue;
    }
    const std::string targets_path = group.PathOf("targets");
    if (!targets->value.IsSequence()) {
      sink.Error(targets->value, targets_path,
                 "must be a list of targets, got " + Describe(targets->value));
      continue;
    }
    size_t t = 0;
    for (const YAML::Node& node : targets->value) {
      const std::string path = IndexPath(targets_path, t++);
      Peer peer;
      if (!ParseTarget(node, path, json, sink, &peer)) continue;
      auto [it, inserted] = first_line.emplace(peer.name, node.Mark().line + 1);
      if (!inserted) {
        sink.Error(node, path,
                   "duplicate target \"" + peer.name + "\", first given at line " +
                       std::to_string(it->second) + "; each target may appear once");
        continue;
      }
      peer.labels = labels;
      out->push_back(std::move(peer));
      names->push_back({node, path});
    }
  }
}

}  // namespace rxe::config
