// config::ModulePeers (static + file peers, minus prober.self, module.peers, subset),
// MeshWarnings, and the mesh options' validation (prober.self, module subset).
#include "config/module_peers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <set>

#include "config/loader.h"
#include "tests/config/fixture_util.h"

namespace rxe::config {
namespace {

using testing::ErrorOf;
using testing::PeerNames;

Config MustLoad(const std::string& yaml) {
  auto cfg = LoadString(yaml, "rxe.yml");
  EXPECT_TRUE(cfg.ok()) << cfg.error().message;
  return cfg.ok() ? *cfg : Config{};
}

const std::string kPeers =
    "peers:\n"
    "  - {name: a1, address: 10.0.1.1, labels: {rack: r1}}\n"
    "  - {name: a2, address: 10.0.1.2, labels: {rack: r1}}\n"
    "  - {name: a3, address: 10.0.1.3, labels: {rack: r1}}\n"
    "  - {name: b1, address: 10.0.2.1, labels: {rack: r2}}\n"
    "  - {name: b2, address: 10.0.2.2, labels: {rack: r2}}\n"
    "  - {name: b3, address: 10.0.2.3, labels: {rack: r2}}\n"
    "  - {name: c1, address: 10.0.3.1, labels: {rack: r3}}\n"
    "  - {name: c2, address: 10.0.3.2, labels: {rack: r3}}\n";

TEST(ModulePeers, WithoutSelfOrSubsetItIsEveryPeerOrTheListedOnes) {
  const Config cfg = MustLoad(kPeers +
                              "modules:\n"
                              "  all: {type: send_lat}\n"
                              "  some: {type: send_lat, peers: [c2, a1]}\n");
  EXPECT_EQ(PeerNames(ModulePeers(cfg, cfg.modules.at("all"))),
            (std::vector<std::string>{"a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2"}));
  EXPECT_EQ(PeerNames(ModulePeers(cfg, cfg.modules.at("some"))),
            (std::vector<std::string>{"c2", "a1"}));
  EXPECT_TRUE(MeshWarnings(cfg).empty());
}

TEST(ModulePeers, SelfIsNeverProbed) {
  const Config cfg = MustLoad(kPeers +
                              "prober: {self: {name: a2}}\n"
                              "modules:\n"
                              "  all: {type: send_lat}\n"
                              "  some: {type: send_lat, peers: [a2, b1]}\n");
  EXPECT_EQ(PeerNames(ModulePeers(cfg, cfg.modules.at("all"))),
            (std::vector<std::string>{"a1", "a3", "b1", "b2", "b3", "c1", "c2"}));
  EXPECT_EQ(PeerNames(ModulePeers(cfg, cfg.modules.at("some"))), (std::vector<std::string>{"b1"}));
  EXPECT_EQ(SelfLabels(cfg), (std::map<std::string, std::string>{{"rack", "r1"}}));
}

TEST(ModulePeers, SubsetKeepsMyGroupAndSamplesTheOthers) {
  const Config cfg = MustLoad(kPeers +
                              "prober: {self: {name: a2}}\n"
                              "modules:\n"
                              "  mesh:\n"
                              "    type: send_lat\n"
                              "    subset: {group_label: rack, per_other_group: 1}\n");
  const Module& m = cfg.modules.at("mesh");
  ASSERT_TRUE(m.subset);
  EXPECT_EQ(m.subset->group_label, "rack");
  EXPECT_EQ(m.subset->per_other_group, 1u);
  const auto got = ModulePeers(cfg, m);
  std::map<std::string, int> per_rack;
  for (const Peer& p : got) ++per_rack[p.labels.at("rack")];
  EXPECT_EQ(per_rack, (std::map<std::string, int>{{"r1", 2}, {"r2", 1}, {"r3", 1}}));
  EXPECT_EQ(std::count_if(got.begin(), got.end(), [](const Peer& p) { return p.name == "a2"; }), 0);
}

TEST(ModulePeers, ExplicitSelfLabelsWin) {
  // This host is not in the list (e.g. a monitoring box), but says it is in rack r3.
  const Config cfg = MustLoad(kPeers +
                              "prober: {self: {name: mon, labels: {rack: r3}}}\n"
                              "modules:\n"
                              "  mesh:\n"
                              "    type: send_lat\n"
                              "    subset: {group_label: rack, per_other_group: 2, seed: x}\n");
  const auto got = ModulePeers(cfg, cfg.modules.at("mesh"));
  std::map<std::string, int> per_rack;
  for (const Peer& p : got) ++per_rack[p.labels.at("rack")];
  EXPECT_EQ(per_rack, (std::map<std::string, int>{{"r1", 2}, {"r2", 2}, {"r3", 2}}));
  EXPECT_EQ(cfg.modules.at("mesh").subset->seed, "x");
  // Labels given, so only the name is worth a warning.
  EXPECT_EQ(MeshWarnings(cfg),
            (std::vector<std::string>{"rxe.yml: prober.self.name: \"mon\" matches no peer in "
                                      "peers or peer_files, so no peer is skipped as this host"}));
}

TEST(ModulePeers, Warnings) {
  const Config cfg = MustLoad(kPeers +
                              "prober: {self: {name: mon}}\n"
                              "modules:\n"
                              "  mesh:\n"
                              "    type: send_lat\n"
                              "    subset: {group_label: rack}\n"
                              "  zoned:\n"
                              "    type: send_lat\n"
                              "    subset: {group_label: zone}\n");
  EXPECT_EQ(cfg.modules.at("mesh").subset->per_other_group, 2u) << "the default";
  EXPECT_EQ(MeshWarnings(cfg),
            (std::vector<std::string>{
                "rxe.yml: prober.self.name: \"mon\" matches no peer in peers or peer_files, so no "
                "peer is skipped as this host and this host has no labels (prober.self.labels is "
                "not given)",
                "rxe.yml: modules.mesh.subset.group_label: this host has no \"rack\" label "
                "(prober.self.labels, or the labels of peer \"mon\"), so its group is the peers "
                "without one: it probes all of those and 2 of each rack",
                "rxe.yml: modules.zoned.subset.group_label: no peer has a \"zone\" label, so all "
                "peers are in one group and this module probes all of them"}));
  // Valid all the same: every peer of rack r1..r3 is sampled, 2 of each.
  EXPECT_EQ(ModulePeers(cfg, cfg.modules.at("mesh")).size(), 6u);
  EXPECT_EQ(ModulePeers(cfg, cfg.modules.at("zoned")).size(), 8u);
}

TEST(ModulePeers, PairCountUsesTheSubset) {
  // 8 peers x 1 module would exceed max_pairs 5; self + subset leave 2 + 1 + 1 = 4.
  const std::string mesh =
      "modules:\n"
      "  mesh:\n"
      "    type: send_lat\n"
      "    subset: {group_label: rack, per_other_group: 1}\n";
  EXPECT_EQ(ErrorOf(kPeers + "prober: {max_pairs: 5, self: {name: a2}}\n" + mesh, "rxe.yml"), "OK");
  EXPECT_NE(ErrorOf(kPeers + "prober: {max_pairs: 5}\nmodules:\n  all: {type: send_lat}\n", "rxe.yml")
                .find("above prober.max_pairs 5"),
            std::string::npos);
}

struct MeshErrorCase {
  const char* yaml;
  const char* message;
};

TEST(ModulePeers, ValidationErrors) {
  const MeshErrorCase cases[] = {
      {"prober: {self: {name: a1}}\nmodules:\n  m:\n    type: send_lat\n    subset: {}\n",
       "rxe.yml:5:13: modules.m.subset.group_label: required key is missing; the peer label that "
       "groups peers, e.g. rack: peers with this host's value are all probed, per_other_group "
       "from each other value"},
      {"prober: {self: {name: a1}}\nmodules:\n  m:\n    type: send_lat\n"
       "    subset: {group_label: rack, per_other_group: 1001}\n",
       "rxe.yml:5:50: modules.m.subset.per_other_group: must be between 0 and 1000, got 1001"},
      {"prober: {self: {name: a1}}\nmodules:\n  m:\n    type: send_lat\n"
       "    subset: {group_label: rack, per_other_group: -1}\n",
       "rxe.yml:5:50: modules.m.subset.per_other_group: must be between 0 and 1000, got -1"},
      {"prober: {self: {name: a1}}\nmodules:\n  m:\n    type: send_lat\n"
       "    subset: {group_label: peer}\n",
       "rxe.yml:5:27: modules.m.subset.group_label: invalid group label \"peer\"; must be a peer "
       "label name like rack ([a-zA-Z_][a-zA-Z0-9_]*, not one of peer, module, device, port, "
       "reason, counter, instance, job, le)"},
      {"prober: {self: {name: a1}}\nmodules:\n  m:\n    type: send_lat\n    peers: [a1]\n"
       "    subset: {group_label: rack, seed: [x]}\n",
       "rxe.yml:6:5: modules.m.subset: cannot be combined with peers: peers lists exactly the "
       "peers to probe, subset picks from all peers; remove one of them\n"
       "rxe.yml:6:39: modules.m.subset.seed: must be a string, got a list"},
      {"modules:\n  m:\n    type: send_lat\n    subset: {group_label: rack}\n",
       "rxe.yml:4:5: modules.m.subset: needs prober.self.name: each host picks its own sample by "
       "its name (without it every host would probe the same peers); set prober.self.name to "
       "this host's peer name"},
      {"prober: {self: {labels: {rack: r1}}}\n",
       "rxe.yml:1:16: prober.self.name: required key is missing; this host's peer name, as in "
       "peers or peer_files (for a file_sd file: the target as written)"},
      {"prober: {self: {name: \"\", labels: {job: x}, nick: y}}\n",
       "rxe.yml:1:23: prober.self.name: must not be empty; give this host's peer name, as in peers "
       "or peer_files\n"
       "rxe.yml:1:36: prober.self.labels.job: label name is used by the exporter; must not be one "
       "of peer, module, device, port, reason, counter, instance, job, le\n"
       "rxe.yml:1:45: prober.self.nick: unknown key; allowed keys: name, labels"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ErrorOf(c.yaml + kPeers, "rxe.yml"), c.message) << c.yaml;
  }
}

// The numbers quoted in docs/configuration.md ("Peer discovery (file_sd) and mesh subsets"):
// 1,000 hosts in 25 racks of 40, per_other_group 2. Every host pings its 39 rack mates and 2 of
// each of the 24 other racks; how evenly are the targets covered?
TEST(ModulePeers, ThousandHostsIn25RacksOf40) {
  Config cfg;
  for (int r = 0; r < 25; ++r) {
    for (int i = 0; i < 40; ++i) {
      cfg.peers.push_back(Peer{"host-r" + std::to_string(r) + "-" + std::to_string(i), "10.0.0.1",
                               19792, {{"rack", "r" + std::to_string(r)}}});
    }
  }
  Module m;
  m.subset = SubsetSpec{"rack", 2, ""};
  std::map<std::string, int> in_degree;
  std::map<std::pair<std::string, std::string>, int> rack_pairs;  // (from rack, to rack) -> pings
  size_t min_out = SIZE_MAX, max_out = 0;
  for (const Peer& me : cfg.peers) {
    cfg.prober.self.name = me.name;
    const auto targets = ModulePeers(cfg, m);
    min_out = std::min(min_out, targets.size());
    max_out = std::max(max_out, targets.size());
    for (const Peer& t : targets) {
      ++in_degree[t.name];
      ++rack_pairs[{me.labels.at("rack"), t.labels.at("rack")}];
    }
  }
  EXPECT_EQ(min_out, 87u);  // 39 + 24 x 2
  EXPECT_EQ(max_out, 87u);
  ASSERT_EQ(in_degree.size(), 1000u) << "every host is pinged by someone";
  int min_in = INT32_MAX, max_in = 0;
  double sum = 0, sq = 0;
  for (const auto& [name, d] : in_degree) {
    min_in = std::min(min_in, d);
    max_in = std::max(max_in, d);
    sum += d;
    sq += double(d) * d;
  }
  const double mean = sum / in_degree.size();
  const double sd = std::sqrt(sq / in_degree.size() - mean * mean);
  int min_cross_in = INT32_MAX, max_cross_in = 0;  // pings from other racks
  for (const auto& [name, d] : in_degree) {
    min_cross_in = std::min(min_cross_in, d - 39);
    max_cross_in = std::max(max_cross_in, d - 39);
  }
  EXPECT_DOUBLE_EQ(mean, 87.0);
  EXPECT_GT(min_cross_in, 0) << "every host is sampled by some other rack";
  // Even coverage: other-rack pings per host are Binomial(960, 2/40) for a good hash (mean 48,
  // sd 6.7). Plain FNV-1a ranked alike from every source: max 272, sd 52.
  EXPECT_LT(max_cross_in, 2 * 48);
  EXPECT_LT(sd, 10.0);
  ASSERT_EQ(rack_pairs.size(), 25u * 25u) << "every (rack, rack) pair is measured";
  for (const auto& [pair, n] : rack_pairs) {
    EXPECT_EQ(n, pair.first == pair.second ? 40 * 39 : 40 * 2) << pair.first << "->" << pair.second;
  }
  std::cout << "1000 hosts, 25 racks x 40, per_other_group 2: out-degree " << min_out
            << ", in-degree min " << min_in << " max " << max_in << " mean " << mean << " sd "
            << sd << " (from other racks: min " << min_cross_in << " max " << max_cross_in
            << ", expected 48)\n";
}

}  // namespace
}  // namespace rxe::config
