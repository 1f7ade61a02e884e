#include "config/peer_file.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "config/loader.h"
#include "tests/config/fixture_util.h"

namespace rxe::config {
namespace {

using testing::PeerNames;

TEST(PeerFileTest, LoadFileReadsPeerFilesRelativeToTheConfig) {
  auto cfg = LoadFile(testing::Fixture("valid-peer-files.yml"));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(PeerNames(cfg->peers), (std::vector<std::string>{"host-b"}));
  EXPECT_EQ(PeerNames(cfg->file_peers), (std::vector<std::string>{"host-c", "host-d", "host-e"}));
  EXPECT_EQ(PeerNames(AllPeers(*cfg)),
            (std::vector<std::string>{"host-b", "host-c", "host-d", "host-e"}));
  EXPECT_EQ(cfg->peer_files,
            (std::vector<std::string>{"peers.d/*.yml", "peers.d/b.yml", "missing.d/*.yaml"}));
  EXPECT_EQ(cfg->file_peers[0].labels.at("rack"), "r2");
  EXPECT_EQ(cfg->file_peers[1].port, 19800);
  EXPECT_EQ(cfg->file_peers[2].address, "fd00::5");
  // Modules may name file peers.
  EXPECT_EQ(cfg->modules.at("lat").peers,
            (std::vector<std::string>{"host-b", "host-c", "host-d"}));
  EXPECT_EQ(cfg->responder.psk_file, testing::Fixture("keys/responder.psk"));
}

TEST(PeerFileTest, ResolvePeerFilesSortsAndDeduplicates) {
  Config cfg;
  cfg.source_file = testing::Fixture("valid-peer-files.yml");
  cfg.peer_files = {"peers.d/*.yml", "peers.d/b.yml", "missing.d/*.yaml"};
  EXPECT_EQ(ResolvePeerFiles(cfg),
            (std::vector<std::string>{testing::Fixture("peers.d/a.yml"),
                                      testing::Fixture("peers.d/b.yml"),
                                      testing::Fixture("peers.d/empty.yml")}));
  cfg.peer_files = {testing::Fixture("peers.d/b.yml")};  // absolute: used as is
  cfg.source_file = "/nonexistent/rxe.yml";
  EXPECT_EQ(ResolvePeerFiles(cfg), (std::vector<std::string>{testing::Fixture("peers.d/b.yml")}));
}

TEST(PeerFileTest, LoadPeerFile) {
  auto peers = LoadPeerFile(testing::Fixture("peers.d/b.yml"));
  ASSERT_TRUE(peers.ok()) << peers.error().message;
  EXPECT_EQ(PeerNames(*peers), (std::vector<std::string>{"host-d", "host-e"}));

  auto empty = LoadPeerFile(testing::Fixture("peers.d/empty.yml"));
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_TRUE(empty->empty());
}

TEST(PeerFileTest, LoadPeerFileErrors) {
  auto missing = LoadPeerFile(testing::Fixture("peers.d/nope.yml"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(testing::StripFixtureDir(missing.error().message),
            "open peers.d/nope.yml: No such file or directory");

  auto invalid = LoadPeerFile(testing::Fixture("peers-invalid/a.yml"));
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(testing::StripFixtureDir(invalid.error().message),
            "peers-invalid/a.yml:3:9: [0].port: must be between 1 and 65535, got 99999\n"
            "peers-invalid/a.yml:4:3: [1].address: required key is missing; must be an IPv4 or "
            "IPv6 address or a host name");

  auto map = LoadPeerFile(testing::Fixture("valid-full.yml"));
  ASSERT_FALSE(map.ok());
  EXPECT_EQ(testing::StripFixtureDir(map.error().message),
            "valid-full.yml:2:1: a peer file must be a list of peers ({name, address, ...}) or "
            "of Prometheus file_sd target groups ({targets: [...], labels: {...}}), got a map");
}

TEST(PeerFileTest, LoadPeerFilesChecksClashesWithStaticPeers) {
  Config cfg;
  cfg.source_file = testing::Fixture("rxe.yml");
  cfg.peer_files = {"peers.d/*.yml"};
  cfg.peers = {Peer{"host-d", "10.0.0.9"}};
  auto peers = LoadPeerFiles(cfg);
  ASSERT_FALSE(peers.ok());
  EXPECT_EQ(testing::StripFixtureDir(peers.error().message),
            "peers.d/b.yml:1:10: [0].name: peer \"host-d\" is already defined in the peers "
            "section of rxe.yml; peer names must be unique across peers and all peer_files");

  cfg.peers = {Peer{"host-b", "10.0.0.2"}};
  peers = LoadPeerFiles(cfg);
  ASSERT_TRUE(peers.ok()) << peers.error().message;
  EXPECT_EQ(PeerNames(*peers), (std::vector<std::string>{"host-c", "host-d", "host-e"}));
}

}  // namespace
}  // namespace rxe::config
