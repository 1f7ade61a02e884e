#include "config/mesh_parse.h"

#include "config/parse_internal.h"
#include "config/rules.h"

namespace rxe::config {

void ParseSelf(const MapReader& prober, SelfConfig* out) {
  static const std::vector<std::string> kKeys{"name", "labels"};
  const auto* e = prober.Find("self");
  if (!e) return;
  MapReader r(e->value, prober.PathOf("self"), prober.sink(), &kKeys);
  if (!r.ok()) return;
  std::string name;
  const Got got = GetString(r, "name", &name);
  if (got == Got::kAbsent) {
    r.Missing("name", "this host's peer name, as in peers or peer_files (for a file_sd file: "
                      "the target as written)");
  } else if (got == Got::kOk && name.empty()) {
    r.sink().Error(r.Find("name")->value, r.PathOf("name"),
                   "must not be empty; give this host's peer name, as in peers or peer_files");
  } else if (got == Got::kOk) {
    out->name = name;
  }
  std::map<std::string, std::string> labels;
  if (ParseLabelMap(r, &labels)) out->labels = std::move(labels);
}

void ParseSubset(const MapReader& module, Module* m) {
  static const std::vector<std::string> kKeys{"group_label", "per_other_group", "seed"};
  const auto* e = module.Find("subset");
  if (!e) return;
  const Sink& sink = module.sink();
  MapReader r(e->value, module.PathOf("subset"), sink, &kKeys);
  if (!r.ok()) return;
  SubsetSpec spec;
  bool ok = true;
  const Got label_got = GetString(r, "group_label", &spec.group_label);
  if (label_got == Got::kAbsent) {
    r.Missing("group_label",
              "the peer label that groups peers, e.g. rack: peers with this host's value are all "
              "probed, per_other_group from each other value");
    ok = false;
  } else if (label_got == Got::kBad) {
    ok = false;
  } else if (!IsValidLabelName(spec.group_label) || IsReservedLabelName(spec.group_label)) {
    sink.Error(r.Find("group_label")->value, r.PathOf("group_label"),
               "invalid group label \"" + spec.group_label +
                   "\"; must be a peer label name like rack ([a-zA-Z_][a-zA-Z0-9_]*, not one of " +
                   JoinList(ReservedLabelNames()) + ")");
    ok = false;
  }
  ok = GetUintAs(r, "per_other_group", 0, kMaxPerOtherGroup, &spec.per_other_group) != Got::kBad &&
       ok;
  ok = GetString(r, "seed", &spec.seed) != Got::kBad && ok;
  if (const auto* peers = module.Find("peers"); peers && peers->value.size() > 0) {
    sink.Error(e->key_node, module.PathOf("subset"),
               "cannot be combined with peers: peers lists exactly the peers to probe, subset "
               "picks from all peers; remove one of them");
    ok = false;
  }
  if (ok) m->subset = std::move(spec);
}

void CheckSubsetsHaveSelf(const Config& cfg, const YAML::Node& modules, const Sink& sink) {
  if (!cfg.prober.self.name.empty() || !modules.IsMap()) return;
  for (const auto& module : modules) {
    if (!module.first.IsScalar() || !module.second.IsMap()) continue;
    auto it = cfg.modules.find(module.first.Scalar());
    if (it == cfg.modules.end() || !it->second.subset) continue;
    for (const auto& kv : module.second) {
      if (!kv.first.IsScalar() || kv.first.Scalar() != "subset") continue;
      sink.Error(kv.first, "modules." + it->first + ".subset",
                 "needs prober.self.name: each host picks its own sample by its name (without "
                 "it every host would probe the same peers); set prober.self.name to this "
                 "host's peer name");
      break;
    }
  }
}

}  // namespace rxe::config
