// Deterministic peer subset for large meshes (R-Pingmesh style): every peer that shares my
// value of a grouping label (e.g. `rack`: the ToR mesh) plus N peers sampled from each other
// group (the inter-ToR sample). Pure. SubsetSpec is in config/model.h (module option
// `subset`); config/module_peers.h applies it to a module's peers.
//
// Sampling is rendezvous hashing: in each other group the N peers with the lowest
// SubsetRank(seed, my_name, peer_name) are chosen. So the choice is the same on every
// run and build, differs between sources (together they cover the group), and a peer joining
// or leaving a group changes at most one pick of each source for that group.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/model.h"

namespace rxe::config {

/// `peers` minus `my_name` itself, reduced as above, in the input order. `my_labels` are this
/// host's labels (its group = my_labels[group_label], "" when absent).
std::vector<Peer> SelectPeerSubset(const std::vector<Peer>& peers, const std::string& my_name,
                                   const std::map<std::string, std::string>& my_labels,
                                   const SubsetSpec& spec);

/// The rendezvous rank of `peer_name` for source `my_name`: FNV-1a 64 of
/// seed '\0' my_name '\0' peer_name, then the MurmurHash3 64-bit finalizer (fmix64).
uint64_t SubsetRank(const std::string& seed, const std::string& my_name,
                    const std::string& peer_name);

/// FNV-1a 64 of `text` (stable across platforms and builds, unlike std::hash).
uint64_t Fnv1a64(const std::string& text);

}  // namespace rxe::config
