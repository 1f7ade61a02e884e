// Parsing of peer entries, shared by `peers:` and peer files.
#include <map>

#include "config/parse_internal.h"
#include "config/rules.h"
#include "config/yaml_fields.h"

namespace rxe::config {
namespace {

const std::vector<std::string> kPeerKeys{"name", "address", "port", "labels"};

}  // namespace

bool ParseLabelMap(const MapReader& owner, std::map<std::string, std::string>* out) {
  const Sink& sink = owner.sink();
  const auto* e = owner.Find("labels");
  if (!e) return false;
  MapReader labels(e->value, owner.PathOf("labels"), sink, nullptr,
                   "a map of label names to values");
  if (!labels.ok()) return false;
  for (const auto& entry : labels.entries()) {
    const std::string path = labels.PathOf(entry.key);
    if (!IsValidLabelName(entry.key)) {
      sink.Error(entry.key_node, path,
                 "invalid label name; must match [a-zA-Z_][a-zA-Z0-9_]* and not start with __");
      continue;
    }
    if (IsReservedLabelName(entry.key)) {
      sink.Error(entry.key_node, path,
                 "label name is used by the exporter; must not be one of " +
                     JoinList(ReservedLabelNames()));
      continue;
    }
    std::string value;
    if (ScalarText(entry.value, path, sink, "a string", &value)) (*out)[entry.key] = value;
  }
  return true;
}

namespace {

// Parses one peer into *out; true if it has a valid name. Errors go to `sink`.
bool ParsePeer(const YAML::Node& node, const std::string& path, const Sink& sink, Peer* out,
               YAML::Node* name_node) {
  MapReader r(node, path, sink, &kPeerKeys, "a map with name and address");
  if (!r.ok()) return false;
  bool named = false;
  if (const auto* e = r.Find("name")) {
    std::string name;
    if (ScalarText(e->value, r.PathOf("name"), sink, "a string", &name)) {
      if (IsValidName(name)) {
        out->name = name;
        *name_node = e->value;
        named = true;
      } else {
        sink.Error(e->value, r.PathOf("name"),
                   "invalid peer name \"" + name + "\"; must match [a-zA-Z0-9_.-]+");
      }
    }
  } else {
    r.Missing("name", "every peer needs a unique name matching [a-zA-Z0-9_.-]+");
  }
  if (const auto* e = r.Find("address")) {
    std::string address;
    if (ScalarText(e->value, r.PathOf("address"), sink, "a string", &address)) {
      if (auto err = CheckHost(address)) {
        sink.Error(e->value, r.PathOf("address"),
                   "invalid address \"" + address + "\" (" + *err +
                       "); must be an IPv4 or IPv6 address or a host name");
      } else {
        out->address = address;
      }
    }
  } else {
    r.Missing("address", "must be an IPv4 or IPv6 address or a host name");
  }
  (void)GetUintAs(r, "port", 1, 65535, &out->port);
  (void)ParseLabelMap(r, &out->labels);
  return named;
}

}  // namespace

void ParsePeerList(const YAML::Node& list, const std::string& path, const Sink& sink,
                   std::vector<Peer>* out, std::vector<PeerName>* names) {
  if (list.IsNull() || !list.IsDefined()) return;
  if (!list.IsSequence()) {
    sink.Error(list, path, "must be a list of peers, got " + Describe(list));
    return;
  }
  std::map<std::string, int> first_line;  // name -> 1-based line of first definition
  size_t i = 0;
  for (const YAML::Node& item : list) {
    const std::string item_path = IndexPath(path, i++);
    if (item.IsNull()) {
      sink.Error(item, item_path, "must be a map with name and address, got null");
      continue;
    }
    Peer peer;
    YAML::Node name_node;
    if (!ParsePeer(item, item_path, sink, &peer, &name_node)) continue;
    auto [it, inserted] = first_line.emplace(peer.name, name_node.Mark().line + 1);
    if (!inserted) {
      sink.Error(name_node, JoinPath(item_path, "name"),
                 "duplicate peer name \"" + peer.name + "\", first defined at line " +
                     std::to_string(it->second) + "; peer names must be unique");
      continue;
    }
    out->push_back(std::move(peer));
    names->push_back({name_node, JoinPath(item_path, "name")});
  }
}

}  // namespace rxe::config
