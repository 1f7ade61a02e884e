// Deterministic R-Pingmesh-style subset: my rack in full + N sampled from each other rack.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "config/peer_subset.h"

namespace rxe::config {
namespace {

// 4 racks x 10 hosts: h<rack>-<i>, label rack=r<rack>; plus one host without the label.
std::vector<Peer> Mesh() {
  std::vector<Peer> v;
  for (int r = 0; r < 4; ++r) {
    for (int i = 0; i < 10; ++i) {
      const std::string n = "h" + std::to_string(r) + "-" + std::to_string(i);
      v.push_back(Peer{n, "10.0." + std::to_string(r) + "." + std::to_string(i), 19792,
                       {{"rack", "r" + std::to_string(r)}}});
    }
  }
  v.push_back(Peer{"loner", "10.9.9.9", 19792, {}});
  return v;
}

std::map<std::string, int> PerRack(const std::vector<Peer>& v) {
  std::map<std::string, int> m;
  for (const auto& p : v) {
    auto it = p.labels.find("rack");
    ++m[it == p.labels.end() ? "" : it->second];
  }
  return m;
}

TEST(PeerSubset, MyRackInFullPlusNFromEachOtherGroup) {
  const SubsetSpec spec{"rack", 2, ""};
  const auto got = SelectPeerSubset(Mesh(), "h1-3", {{"rack", "r1"}}, spec);
  const std::map<std::string, int> want = {{"", 1}, {"r0", 2}, {"r1", 9}, {"r2", 2}, {"r3", 2}};
  EXPECT_EQ(PerRack(got), want);
  for (const auto& p : got) EXPECT_NE(p.name, "h1-3") << "never myself";
  // Input order is kept.
  for (size_t i = 1; i < got.size(); ++i) EXPECT_NE(got[i - 1].name, got[i].name);
  EXPECT_EQ(got.front().name, "h0-" + got.front().name.substr(3));
}

TEST(PeerSubset, DeterministicButDifferentPerSourceAndSeed) {
  const SubsetSpec spec{"rack", 3, ""};
  const auto a1 = SelectPeerSubset(Mesh(), "h1-3", {{"rack", "r1"}}, spec);
  const auto a2 = SelectPeerSubset(Mesh(), "h1-3", {{"rack", "r1"}}, spec);
  ASSERT_EQ(a1.size(), a2.size());
  for (size_t i = 0; i < a1.size(); ++i) EXPECT_EQ(a1[i].name, a2[i].name);
  // All 10 sources of rack r1 together sample more of rack r0 than one source does.
  std::set<std::string> covered;
  for (int i = 0; i < 10; ++i) {
    for (const auto& p : SelectPeerSubset(Mesh(), "h1-" + std::to_string(i), {{"rack", "r1"}}, spec)) {
      if (p.labels.count("rack") && p.labels.at("rack") == "r0") covered.insert(p.name);
    }
  }
  EXPECT_GT(covered.size(), 3u);
  const auto b = SelectPeerSubset(Mesh(), "h1-3", {{"rack", "r1"}}, SubsetSpec{"rack", 3, "rot-1"});
  std::set<std::string> sa, sb;
  for (const auto& p : a1) sa.insert(p.name);
  for (const auto& p : b) sb.insert(p.name);
  EXPECT_NE(sa, sb) << "another seed samples other peers";
}

TEST(PeerSubset, AJoiningPeerChangesAtMostOnePickPerGroup) {
  const SubsetSpec spec{"rack", 3, ""};
  auto before = SelectPeerSubset(Mesh(), "h1-3", {{"rack", "r1"}}, spec);
  auto mesh = Mesh();
  mesh.push_back(Peer{"h0-new", "10.0.0.99", 19792, {{"rack", "r0"}}});
  auto after = SelectPeerSubset(mesh, "h1-3", {{"rack", "r1"}}, spec);
  std::set<std::string> sb, sa;
  for (const auto& p : before) sb.insert(p.name);
  for (const auto& p : after) sa.insert(p.name);
  size_t changed = 0;
  for (const auto& n : sb) changed += sa.count(n) == 0;
  EXPECT_LE(changed, 1u);
  EXPECT_EQ(sa.size(), sb.size());
}

TEST(PeerSubset, ZeroSampleAndKnownHash) {
  const auto got = SelectPeerSubset(Mesh(), "loner", {}, SubsetSpec{"rack", 0, ""});
  EXPECT_TRUE(got.empty()) << "the loner's group '' has nobody else and N = 0";
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
}

}  // namespace
}  // namespace rxe::config
