#include "config/peer_subset.h"

#include <algorithm>
#include <set>
#include <utility>

namespace rxe::config {

uint64_t Fnv1a64(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t SubsetRank(const std::string& seed, const std::string& my_name,
                    const std::string& peer_name) {
  // FNV-1a alone ranks badly: names differing in their last characters (host-r3-7, host-r3-8)
  // change mostly the low bits, so every source would rank a group's peers almost alike (1,000
  // hosts in 25 racks of 40: some hosts pinged by 272 other-rack sources, some by none). The
  // MurmurHash3 finalizer spreads every input bit over the whole word.
  uint64_t h = Fnv1a64(seed + '\0' + my_name + '\0' + peer_name);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

std::vector<Peer> SelectPeerSubset(const std::vector<Peer>& peers, const std::string& my_name,
                                   const std::map<std::string, std::string>& my_labels,
                                   const SubsetSpec& spec) {
  auto group_of = [&](const std::map<std::string, std::string>& labels) {
    auto it = labels.find(spec.group_label);
    return it == labels.end() ? std::string() : it->second;
  };
  const std::string mine = group_of(my_labels);
  // Other groups: (hash, index) per peer, sorted per group; keep the N lowest.
  std::map<std::string, std::vector<std::pair<uint64_t, size_t>>> others;
  std::set<size_t> keep;
  for (size_t i = 0; i < peers.size(); ++i) {
    if (peers[i].name == my_name) continue;
    const std::string g = group_of(peers[i].labels);
    if (g == mine) {
      keep.insert(i);
    } else {
      others[g].emplace_back(SubsetRank(spec.seed, my_name, peers[i].name), i);
    }
  }
  for (auto& [group, ranked] : others) {
    std::sort(ranked.begin(), ranked.end());
    const size_t n = std::min<size_t>(spec.per_other_group, ranked.size());
    for (size_t k = 0; k < n; ++k) keep.insert(ranked[k].second);
  }
  std::vector<Peer> out;
  out.reserve(keep.size());
  for (size_t i : keep) out.push_back(peers[i]);
  return out;
}

}  // namespace rxe::config
