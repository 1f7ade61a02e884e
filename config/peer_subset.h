// Deterministic peer subset for large meshes (R-Pingmesh style): every peer that shares my
// value of a grouping label (e.g. `rack`: the ToR mesh) plus N peers sampled from each other
// group (the inter-ToR sample). Pure; not yet wired to a module option.
//
// Sampling is rendezvous hashing: in each other group the N peers with the lowest
// FNV-1a-64(seed '\0' my_name '\0' peer_name) are chosen. So the choice is the same on every
// run and build, differs between sources (together they cover the group), and a peer joining
// or leaving a group changes at most one pick of each source for that group.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/model.h"

namespace rxe::config {

struct SubsetSpec {
  std::string group_label;         // e.g. "rack"; peers without it form the group ""
  uint32_t per_other_group = 0;    // N sampled peers from each group other than mine
  std::string seed;                // changes every source's sample at once (e.g. to rotate)
};

/// `peers` minus `my_name` itself, reduced as above, in the input order. `my_labels` are this
/// host's labels (its group = my_labels[group_label], "" when absent).
std::vector<Peer> SelectPeerSubset(const std::vector<Peer>& peers, const std::string& my_name,
                                   const std::map<std::string, std::string>& my_labels,
                                   const SubsetSpec& spec);

/// FNV-1a 64 of `text` (stable across platforms and builds, unlike std::hash).
uint64_t Fnv1a64(const std::string& text);

}  // namespace rxe::config
