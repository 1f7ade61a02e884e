// ud_ping modules: defaults, bounds and the keys that apply (invalid files: invalid_test.cc).
#include <gtest/gtest.h>

#include "config/loader.h"
#include "tests/config/fixture_util.h"

namespace rxe::config {
namespace {

using testing::ErrorOf;

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(UdPingConfigTest, DefaultsAndKeysFromFixture) {
  auto cfg = LoadFile(testing::Fixture("valid-ud-ping.yml"));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  const Module& mesh = cfg->modules.at("mesh");
  EXPECT_EQ(mesh.type, ProbeType::kUdPing);
  EXPECT_EQ(mesh.interval, seconds(10));
  EXPECT_EQ(mesh.timeout, seconds(1));
  EXPECT_EQ(mesh.size, 64u);
  EXPECT_TRUE(mesh.peers.empty());
  EXPECT_EQ(mesh.aggregate_by, "");
  const Module& racks = cfg->modules.at("racks");
  EXPECT_EQ(racks.peers, std::vector<std::string>{"host-c"});
  EXPECT_EQ(racks.device, "rxe0");
  EXPECT_EQ(racks.aggregate_by, "rack");
  EXPECT_STREQ(ProbeTypeName(racks.type), "ud_ping");
}

TEST(UdPingConfigTest, ExplicitValuesAndBounds) {
  auto cfg = LoadString(
      "modules:\n  m:\n    type: ud_ping\n    interval: 100ms\n    timeout: 90ms\n    size: 1KiB\n",
      "t.yml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->modules.at("m").interval, milliseconds(100));
  EXPECT_EQ(cfg->modules.at("m").timeout, milliseconds(90));
  EXPECT_EQ(cfg->modules.at("m").size, 1024u);
  EXPECT_EQ(ErrorOf("modules:\n  m:\n    type: ud_ping\n    size: 63\n"),
            "t.yml:4:11: modules.m.size: must be between 64 and 1KiB, got 63");
  EXPECT_EQ(ErrorOf("modules:\n  m:\n    type: ud_ping\n    interval: 50ms\n"),
            "t.yml:4:15: modules.m.interval: must be between 100ms and 1d, got 50ms");
  // The default timeout (1s) must stay below a shorter interval.
  EXPECT_EQ(ErrorOf("modules:\n  m:\n    type: ud_ping\n    interval: 500ms\n"),
            "t.yml:4:15: modules.m.interval: must be greater than timeout (1s), got 500ms");
}

TEST(UdPingConfigTest, EveryRcKeyIsRejected) {
  for (const char* key : {"mtu: 1024", "qps: 2", "post_list: 2", "cq_moderation: 2",
                          "tx_depth: 2", "inline_size: 0", "duration: 1s", "iterations: 10",
                          "gid_index: 1", "qp_timeout: 14"}) {
    const std::string err = ErrorOf(std::string("modules:\n  m:\n    type: ud_ping\n    ") + key + "\n");
    EXPECT_NE(err.find("only applies to RC probe modules"), std::string::npos) << key << ": " << err;
  }
}

TEST(UdPingConfigTest, SameTimingAcrossModulesIsAccepted) {
  EXPECT_EQ(ErrorOf("modules:\n  a:\n    type: ud_ping\n    interval: 5s\n"
                    "  b:\n    type: ud_ping\n    interval: 5s\n    aggregate_by: rack\n"
                    "  lat:\n    type: send_lat\n"),
            "OK");
}

}  // namespace
}  // namespace rxe::config
