// The shipped example configs must load, and say what their comments claim.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "config/loader.h"
#include "config/module_peers.h"

namespace rxe::config {
namespace {

std::string Example(const std::string& name) {
  return std::string(RXE_SOURCE_DIR) + "/config/examples/" + name;
}

Config MustLoadExample(const std::string& name) {
  auto cfg = LoadFile(Example(name));
  EXPECT_TRUE(cfg.ok()) << name << ": " << cfg.error().message;
  return cfg.ok() ? *cfg : Config{};
}

TEST(ExamplesTest, SelfProbesItselfWithAllFourTypes) {
  const Config cfg = MustLoadExample("self.yml");
  ASSERT_EQ(cfg.peers.size(), 1u);
  EXPECT_EQ(cfg.peers[0].name, "self");
  EXPECT_EQ(cfg.peers[0].address, "10.77.0.10");
  std::set<ProbeType> types;
  for (const auto& [name, m] : cfg.modules) {
    types.insert(m.type);
    EXPECT_LE(m.interval, std::chrono::seconds(10)) << name;
  }
  EXPECT_EQ(types.size(), 4u);
}

TEST(ExamplesTest, Mesh3HasThreePeersAndBothKinds) {
  const Config cfg = MustLoadExample("mesh3.yml");
  ASSERT_EQ(cfg.peers.size(), 3u);
  EXPECT_EQ(cfg.peers[0].address, "10.77.0.10");
  EXPECT_EQ(cfg.peers[1].address, "10.77.0.11");
  EXPECT_EQ(cfg.peers[2].address, "10.77.0.12");
  bool bandwidth = false;
  bool latency = false;
  for (const auto& [name, m] : cfg.modules) {
    (IsBandwidth(m.type) ? bandwidth : latency) = true;
    EXPECT_TRUE(m.peers.empty()) << name << " should probe every peer";
  }
  EXPECT_TRUE(bandwidth);
  EXPECT_TRUE(latency);
}

TEST(ExamplesTest, MeshFileSdReadsThePrometheusFile) {
  const Config cfg = MustLoadExample("mesh_file_sd.yml");
  ASSERT_EQ(cfg.file_peers.size(), 3u);
  EXPECT_EQ(cfg.file_peers[2].name, "10.77.0.12");
  EXPECT_EQ(cfg.file_peers[2].labels.at("rack"), "r2");
  EXPECT_EQ(cfg.prober.self.name, "10.77.0.10");
  // Its rack mate and the one host of rack r2; never itself.
  std::vector<std::string> names;
  for (const Peer& p : ModulePeers(cfg, cfg.modules.at("send_lat"))) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"10.77.0.11", "10.77.0.12"}));
  EXPECT_TRUE(MeshWarnings(cfg).empty());
}

TEST(ExamplesTest, MinimalIsCountersOnly) {
  const Config cfg = MustLoadExample("minimal.yml");
  EXPECT_TRUE(cfg.peers.empty());
  EXPECT_TRUE(cfg.modules.empty());
  EXPECT_FALSE(cfg.responder.enabled);
}

TEST(ExamplesTest, DefaultIsCountersOnlyAndItsCommentedExamplesLoad) {
  const Config cfg = MustLoadExample("rxe_exporter.yml");
  EXPECT_TRUE(cfg.peers.empty());
  EXPECT_TRUE(cfg.modules.empty());

  // Uncommenting the "#  " lines gives a valid probing config.
  std::ifstream in(Example("rxe_exporter.yml"));
  std::stringstream uncommented;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#  ", 0) == 0) line = "  " + line.substr(3);
    uncommented << line << "\n";
  }
  auto probing = LoadString(uncommented.str(), Example("rxe_exporter.yml"));
  ASSERT_TRUE(probing.ok()) << probing.error().message;
  EXPECT_EQ(probing->peers.size(), 1u);
  EXPECT_EQ(probing->modules.size(), 2u);
}

}  // namespace
}  // namespace rxe::config
