// Peer files in Prometheus file_sd format (JSON or YAML), next to the YAML peer list.
#include <gtest/gtest.h>

#include "config/loader.h"
#include "config/peer_file.h"
#include "tests/config/fixture_util.h"

namespace rxe::config {
namespace {

const std::string kForms =
    "must be \"host\", \"host:port\" or \"[ipv6]:port\" (port: the responder's control port, "
    "default 19792)";

using testing::PeerNames;

TEST(FileSdTest, JsonTargetsBecomePeers) {
  auto peers = LoadPeerFile(testing::Fixture("file_sd/racks.json"));
  ASSERT_TRUE(peers.ok()) << peers.error().message;
  ASSERT_EQ(PeerNames(*peers), (std::vector<std::string>{"host-a", "host-b", "10.0.0.3",
                                                         "host-d:19800", "[fd00::5]:19801",
                                                         "[fd00::6]"}));
  const Peer& a = (*peers)[0];
  EXPECT_EQ(a.address, "host-a");
  EXPECT_EQ(a.port, 19792);
  // __-prefixed labels and labels Prometheus or the exporter set (job) are not peer labels.
  EXPECT_EQ(a.labels, (std::map<std::string, std::string>{{"env", "lab"}, {"rack", "r1"}}));
  EXPECT_EQ((*peers)[2].address, "10.0.0.3");
  EXPECT_EQ((*peers)[3].address, "host-d");
  EXPECT_EQ((*peers)[3].port, 19800);
  EXPECT_EQ((*peers)[4].address, "fd00::5");
  EXPECT_EQ((*peers)[4].port, 19801);
  EXPECT_EQ((*peers)[5].address, "fd00::6");
  EXPECT_EQ((*peers)[5].port, 19792);
  EXPECT_EQ((*peers)[5].labels.at("rack"), "r2");
}

TEST(FileSdTest, YamlTargetsBecomePeers) {
  auto peers = LoadPeerFile(testing::Fixture("file_sd/more.yml"));
  ASSERT_TRUE(peers.ok()) << peers.error().message;
  ASSERT_EQ(PeerNames(*peers), (std::vector<std::string>{"host-g", "host-h:19793", "host-i"}));
  EXPECT_EQ((*peers)[1].port, 19793);
  EXPECT_EQ((*peers)[1].labels.at("rack"), "r3");
  EXPECT_TRUE((*peers)[2].labels.empty());
}

TEST(FileSdTest, BothFormatsInOneConfig) {
  auto cfg = LoadFile(testing::Fixture("valid-file-sd.yml"));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(PeerNames(cfg->file_peers),
            (std::vector<std::string>{"host-a", "host-b", "10.0.0.3", "host-d:19800",
                                      "[fd00::5]:19801", "[fd00::6]", "host-g", "host-h:19793",
                                      "host-i", "host-c"}));
}

TEST(FileSdTest, JsonErrorsArePositioned) {
  auto bad = LoadPeerFile(testing::Fixture("file_sd-invalid/bad.json"));
  ASSERT_FALSE(bad.ok());
  const std::string f = "file_sd-invalid/bad.json:";
  EXPECT_EQ(testing::StripFixtureDir(bad.error().message),
            f + "2:16: [0].targets[0]: empty target; " + kForms + "\n" +
            f + "2:20: [0].targets[1]: invalid target \"host-x:0\" (bad port \"0\" (1..65535)); " +
                kForms + "\n" +
            f + "2:42: [0].targets[3]: invalid target \"[host-z]:1\" (brackets are for IPv6 "
                "addresses); " + kForms + "\n" +
            f + "2:56: [0].targets[4]: must be a string (in JSON: in double quotes), got 5\n" +
            f + "2:59: [0].targets[5]: invalid target \"bad_host!\" (invalid host name); " +
                kForms + "\n" +
            f + "3:23: [0].labels.rack: must be a string (in JSON: in double quotes), got 1\n" +
            f + "3:26: [0].labels.1x: invalid label name; must match [a-zA-Z_][a-zA-Z0-9_]*\n" +
            f + "3:43: [0].labels.ok: must be a string, got null\n" +
            f + "4:3: [1].targets: required key is missing; a list of targets; each " + kForms +
                "\n" +
            f + "5:15: [2].targets: must be a list of targets, got \"host-q\"\n" +
            f + "6:3: [3]: must be a target group {targets: [...], labels: {...}}, got "
                "\"just-a-string\"\n" +
            f + "7:16: [4].targets[0]: duplicate target \"host-y\", first given at line 2; each "
                "target may appear once\n" +
            f + "7:27: [4].extra: unknown key; allowed keys: targets, labels");
}

TEST(FileSdTest, YamlErrors) {
  // In YAML a plain scalar is a string (as for Prometheus): 7 is checked as a host, rack: 1 is "1".
  auto bad = LoadPeerFile(testing::Fixture("file_sd-invalid/plain.yml"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(testing::StripFixtureDir(bad.error().message),
            "file_sd-invalid/plain.yml:1:21: [0].targets[1]: invalid target \"7\" (invalid IPv4 "
            "address); " + kForms + "\n"
            "file_sd-invalid/plain.yml:2:27: [0].labels.zone: must be a string, got a list");
}

TEST(FileSdTest, TargetsClashWithPeersAsNamesDo) {
  Config cfg;
  cfg.source_file = testing::Fixture("rxe.yml");
  cfg.peers = {Peer{"host-b", "10.0.0.9"}};
  cfg.peer_files = {"file_sd/racks.json"};
  auto peers = LoadPeerFiles(cfg);
  ASSERT_FALSE(peers.ok());
  EXPECT_EQ(testing::StripFixtureDir(peers.error().message),
            "file_sd/racks.json:3:27: [0].targets[1]: peer \"host-b\" is already defined in the "
            "peers section of rxe.yml; peer names must be unique across peers and all peer_files");

  // Across files: a YAML peer list and a file_sd file naming the same peer.
  cfg.peers.clear();
  cfg.peer_files = {"file_sd/racks.json", "peers-clash/*.yml"};
  peers = LoadPeerFiles(cfg);
  ASSERT_FALSE(peers.ok());
  EXPECT_NE(peers.error().message.find("is already defined in " +
                                       testing::Fixture("file_sd/racks.json")),
            std::string::npos)
      << peers.error().message;
}

TEST(FileSdTest, FormatIsDetectedPerFile) {
  // The first entry with targets, name or address decides; the other format's keys are then
  // unknown keys.
  Config cfg;
  cfg.source_file = testing::Fixture("rxe.yml");
  cfg.peer_files = {"file_sd-invalid/mixed.yml"};
  auto peers = LoadPeerFiles(cfg);
  ASSERT_FALSE(peers.ok());
  EXPECT_EQ(testing::StripFixtureDir(peers.error().message),
            "file_sd-invalid/mixed.yml:2:3: [1].targets: required key is missing; a list of "
            "targets; each " + kForms + "\n"
            "file_sd-invalid/mixed.yml:2:4: [1].name: unknown key; allowed keys: targets, labels\n"
            "file_sd-invalid/mixed.yml:2:18: [1].address: unknown key; allowed keys: targets, "
            "labels");
}

}  // namespace
}  // namespace rxe::config
