// The RC scheduler's pairs come from config::ModulePeers: prober.self is never probed and a
// module's subset applies to every module type.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "config/loader.h"
#include "probes/scheduler_runner.h"

namespace rxe::probes {
namespace {

std::set<std::string> PeersOf(const std::vector<ScheduledPair>& pairs, const std::string& module) {
  std::set<std::string> out;
  for (const auto& p : pairs) {
    if (p.module.name == module) out.insert(p.peer.name);
  }
  return out;
}

TEST(PairsFrom, SelfAndSubsetApplyToRcModules) {
  std::string yaml =
      "responder: {enabled: false}\n"
      "prober: {self: {name: a1}}\n"
      "modules:\n"
      "  bw: {type: write_bw, peers: [a1, b1]}\n"
      "  lat: {type: send_lat, subset: {group_label: rack, per_other_group: 1}}\n"
      "peers:\n";
  for (const char* rack : {"a", "b", "c"}) {
    for (int i = 1; i <= 3; ++i) {
      yaml += std::string("  - {name: ") + rack + std::to_string(i) + ", address: 10.0.0." +
              std::to_string(i) + ", labels: {rack: " + rack + "}}\n";
    }
  }
  auto cfg = config::LoadString(yaml, "rxe.yml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  const auto pairs = PairsFrom(*cfg);
  EXPECT_EQ(PeersOf(pairs, "bw"), (std::set<std::string>{"b1"})) << "never itself";
  const auto lat = PeersOf(pairs, "lat");
  ASSERT_EQ(lat.size(), 4u) << "a2, a3 + one of rack b + one of rack c";
  EXPECT_TRUE(lat.count("a2") && lat.count("a3"));
  for (char rack : {'b', 'c'}) {
    EXPECT_EQ(std::count_if(lat.begin(), lat.end(),
                            [rack](const std::string& n) { return n[0] == rack; }),
              1)
        << rack;
  }
  for (const auto& p : pairs) EXPECT_EQ(p.module.name == "lat", p.module.subset.has_value());
}

}  // namespace
}  // namespace rxe::probes
