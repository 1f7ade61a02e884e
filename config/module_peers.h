// Which peers a module probes (issue 15): pure functions of a loaded Config, used by the RC
// scheduler (probes/scheduler_runner.cc) and the ud_ping mesh alike.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "config/model.h"

namespace rxe::config {

/// This host's labels: prober.self.labels if given, else the labels of the peer named
/// prober.self.name (static peers first, then file peers), else none.
std::map<std::string, std::string> SelfLabels(const Config& cfg);

/// The peers `module` probes: cfg.peers then cfg.file_peers (first of a name wins), minus the
/// peer named prober.self.name, filtered by module.peers (empty = all; kept in module.peers
/// order, unknown names skipped), reduced by module.subset (config/peer_subset.h, with this
/// host's name and SelfLabels). The loader rejects subset next to a non-empty peers list;
/// given both, the subset is picked from the listed peers.
std::vector<Peer> ModulePeers(const Config& cfg, const Module& module);

/// Things that are valid but probably not meant, for --config.check and the daemon's log,
/// each "FILE: KEY.PATH: what; consequence": prober.self.name matching no peer; a subset
/// module where this host has no group label, or no peer has it.
std::vector<std::string> MeshWarnings(const Config& cfg);

}  // namespace rxe::config
