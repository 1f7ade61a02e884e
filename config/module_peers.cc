#include "config/module_peers.h"

#include <set>

#include "config/peer_subset.h"

namespace rxe::config {
namespace {

const Peer* FindPeer(const Config& cfg, const std::string& name) {
  for (const auto* list : {&cfg.peers, &cfg.file_peers}) {
    for (const Peer& p : *list) {
      if (p.name == name) return &p;
    }
  }
  return nullptr;
}

}  // namespace

std::map<std::string, std::string> SelfLabels(const Config& cfg) {
  const SelfConfig& self = cfg.prober.self;
  if (self.labels) return *self.labels;
  if (self.name.empty()) return {};
  const Peer* p = FindPeer(cfg, self.name);
  return p ? p->labels : std::map<std::string, std::string>{};
}

std::vector<Peer> ModulePeers(const Config& cfg, const Module& module) {
  const std::string& me = cfg.prober.self.name;
  std::vector<Peer> out;
  std::set<std::string> seen;
  const auto add = [&](const Peer& p) {
    if ((me.empty() || p.name != me) && seen.insert(p.name).second) out.push_back(p);
  };
  if (module.peers.empty()) {
    for (const auto* list : {&cfg.peers, &cfg.file_peers}) {
      for (const Peer& p : *list) add(p);
    }
  } else {
    for (const std::string& name : module.peers) {
      if (const Peer* p = FindPeer(cfg, name)) add(*p);
    }
  }
  if (!module.subset) return out;
  return SelectPeerSubset(out, me, SelfLabels(cfg), *module.subset);
}

std::vector<std::string> MeshWarnings(const Config& cfg) {
  std::vector<std::string> out;
  const std::string where = cfg.source_file.empty() ? "" : cfg.source_file + ": ";
  const SelfConfig& self = cfg.prober.self;
  if (!self.name.empty() && !FindPeer(cfg, self.name)) {
    out.push_back(where + "prober.self.name: \"" + self.name +
                  "\" matches no peer in peers or peer_files, so no peer is skipped as this "
                  "host" +
                  (self.labels ? ""
                               : " and this host has no labels (prober.self.labels is not given)"));
  }
  const auto my_labels = SelfLabels(cfg);
  for (const auto& [name, m] : cfg.modules) {
    if (!m.subset) continue;
    const std::string& label = m.subset->group_label;
    const std::string path = where + "modules." + name + ".subset.group_label: ";
    bool any = false;
    for (const auto* list : {&cfg.peers, &cfg.file_peers}) {
      for (const Peer& p : *list) any = any || p.labels.count(label) > 0;
    }
    if (!any) {
      out.push_back(path + "no peer has a \"" + label +
                    "\" label, so all peers are in one group and this module probes all of them");
    } else if (!self.name.empty() && !my_labels.count(label)) {
      out.push_back(path + "this host has no \"" + label +
                    "\" label (prober.self.labels, or the labels of peer \"" + self.name +
                    "\"), so its group is the peers without one: it probes all of those and " +
                    std::to_string(m.subset->per_other_group) + " of each " + label);
    }
  }
  return out;
}

}  // namespace rxe::config
