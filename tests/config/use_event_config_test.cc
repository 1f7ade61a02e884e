// use_event (perftest -e): send_lat only, a YAML bool, default false (invalid files:
// invalid_test.cc; into the probe parameters: prober_flow_test.cc).
#include <gtest/gtest.h>

#include "config/loader.h"
#include "tests/config/fixture_util.h"

namespace rxe::config {
namespace {

using testing::ErrorOf;

TEST(UseEventConfigTest, SendLatDefaultsToBusyPollingAndAcceptsTrue) {
  auto cfg = LoadString(
      "modules:\n  busy: {type: send_lat}\n  ev: {type: send_lat, use_event: true}\n"
      "  off: {type: send_lat, use_event: false}\n",
      "t.yml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_FALSE(cfg->modules.at("busy").use_event);
  EXPECT_TRUE(cfg->modules.at("ev").use_event);
  EXPECT_FALSE(cfg->modules.at("off").use_event);
}

TEST(UseEventConfigTest, EveryOtherTypeRejectsIt) {
  for (const char* type : {"write_bw", "send_bw", "write_lat", "ud_ping"}) {
    for (const char* value : {"true", "false"}) {
      EXPECT_EQ(ErrorOf(std::string("modules:\n  m:\n    type: ") + type + "\n    use_event: " +
                        value + "\n"),
                std::string("t.yml:4:5: modules.m.use_event: only applies to send_lat modules "
                            "(perftest -e); remove it from this ") +
                    type + " module")
          << type;
    }
  }
}

TEST(UseEventConfigTest, MustBeABool) {
  EXPECT_EQ(ErrorOf("modules:\n  m:\n    type: send_lat\n    use_event: 1\n"),
            "t.yml:4:16: modules.m.use_event: must be true or false, got \"1\"");
  EXPECT_EQ(ErrorOf("modules:\n  m:\n    type: send_lat\n    use_event: [true]\n"),
            "t.yml:4:16: modules.m.use_event: must be true or false, got a list");
}

}  // namespace
}  // namespace rxe::config
