// Table-driven tests of the pure sysfs parsers (collectors/sysfs_parse.h).
#include "collectors/sysfs_parse.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace rxe::collectors {
namespace {

struct NumberedCase {
  std::string input;
  bool ok;
  uint32_t number = 0;
  std::string name;
};

void CheckNumbered(const std::vector<NumberedCase>& cases,
                   Result<NumberedName> (*parse)(std::string_view)) {
  for (const auto& c : cases) {
    SCOPED_TRACE("input: \"" + c.input + "\"");
    auto r = parse(c.input);
    ASSERT_EQ(r.ok(), c.ok) << (r.ok() ? "" : r.error().message);
    if (!c.ok) {
      EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
      continue;
    }
    EXPECT_EQ(r->number, c.number);
    EXPECT_EQ(r->name, c.name);
  }
}

TEST(SysfsParseTest, State) {
  CheckNumbered({{"4: ACTIVE\n", true, 4, "ACTIVE"},
                 {"4: ACTIVE", true, 4, "ACTIVE"},
                 {"1: DOWN\n", true, 1, "DOWN"},
                 {"5: ACTIVE_DEFER\n", true, 5, "ACTIVE_DEFER"},
                 {"0: NOP\n", true, 0, "NOP"},
                 {"", false},
                 {"\n", false},
                 {"ACTIVE", false},
                 {"4 ACTIVE", false},
                 {"4:ACTIVE", false},
                 {"4: ", false},
                 {": ACTIVE", false},
                 {"x: ACTIVE", false},
                 {"-4: ACTIVE", false},
                 {" 4: ACTIVE", false},
                 {"99999999999: ACTIVE", false}},
                ParseState);
}

TEST(SysfsParseTest, PhysState) {
  CheckNumbered({{"5: LinkUp\n", true, 5, "LinkUp"},
                 {"2: Polling\n", true, 2, "Polling"},
                 {"3: Disabled\n", true, 3, "Disabled"},
                 {"7: Phy Test\n", true, 7, "Phy Test"},
                 {"0: <unknown>\n", true, 0, "<unknown>"},
                 {"LinkUp\n", false},
                 {"5\n", false}},
                ParsePhysState);
}

TEST(SysfsParseTest, NodeType) {
  CheckNumbered({{"1: CA\n", true, 1, "CA"},
                 {"4: RNIC\n", true, 4, "RNIC"},
                 {"CA\n", false}},
                ParseNodeType);
}

TEST(SysfsParseTest, Rate) {
  struct Case {
    std::string input;
    bool ok;
    uint64_t bytes = 0;
  };
  const std::vector<Case> cases = {
      {"2.5 Gb/sec (1X SDR)\n", true, 312'500'000},
      {"10 Gb/sec (1X FDR10)\n", true, 1'250'000'000},
      {"14 Gb/sec (1X FDR)\n", true, 1'750'000'000},
      {"20 Gb/sec (4X DDR)\n", true, 2'500'000'000},
      {"25 Gb/sec (1X EDR)\n", true, 3'125'000'000},
      {"40 Gb/sec (4X FDR10)\n", true, 5'000'000'000},
      {"50 Gb/sec (2X EDR)\n", true, 6'250'000'000},
      {"56 Gb/sec (4X FDR)\n", true, 7'000'000'000},
      {"100 Gb/sec (4X EDR)\n", true, 12'500'000'000},
      {"200 Gb/sec (4X HDR)\n", true, 25'000'000'000},
      {"400 Gb/sec (4X NDR)\n", true, 50'000'000'000},
      {"100 Gb/sec", true, 12'500'000'000},
      {"0 Gb/sec (0X)\n", true, 0},
      {"", false},
      {"Gb/sec (1X SDR)", false},
      {"100", false},
      {"100 Mb/sec (4X EDR)", false},
      {"100 Gb/sec 4X EDR", false},
      {"100 Gb/sec (", false},
      {"1a0 Gb/sec (4X EDR)", false},
      {"2. Gb/sec (1X SDR)", false},
      {".5 Gb/sec (1X SDR)", false},
      {"-10 Gb/sec (1X SDR)", false},
      {"2.5.5 Gb/sec (1X SDR)", false},
      {"2.1234567890 Gb/sec (1X SDR)", false},
      {"999999999999999999999 Gb/sec (4X EDR)", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("input: \"" + c.input + "\"");
    auto r = ParseRate(c.input);
    ASSERT_EQ(r.ok(), c.ok);
    if (c.ok) {
      EXPECT_EQ(*r, c.bytes);
    }
  }
}

TEST(SysfsParseTest, Counter) {
  struct Case {
    std::string input;
    bool ok;
    std::optional<uint64_t> value;
  };
  const std::vector<Case> cases = {
      {"123\n", true, 123},
      {"0\n", true, 0},
      {"18446744073709551615\n", true, 18446744073709551615ull},
      {"N/A (no PMA)\n", true, std::nullopt},
      {"18446744073709551616\n", false, std::nullopt},
      {"", false, std::nullopt},
      {"-1\n", false, std::nullopt},
      {"12 34\n", false, std::nullopt},
      {"0x10\n", false, std::nullopt},
      {"abc\n", false, std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("input: \"" + c.input + "\"");
    auto r = ParseCounter(c.input);
    ASSERT_EQ(r.ok(), c.ok);
    if (c.ok) {
      EXPECT_EQ(*r, c.value);
    }
  }
}

TEST(SysfsParseTest, Gid) {
  struct Case {
    std::string input;
    bool ok;
    std::string text;
    bool zero = false;
  };
  const std::vector<Case> cases = {
      {"0000:0000:0000:0000:0000:ffff:0a4d:000a\n", true, "::ffff:10.77.0.10"},
      {"fe80:0000:0000:0000:00fc:00ff:fe00:0001\n", true, "fe80::fc:ff:fe00:1"},
      {"FE80:0000:0000:0000:BA59:9FFF:FED4:3A10", true, "fe80::ba59:9fff:fed4:3a10"},
      {"2001:0db8:0000:0000:0001:0000:0000:0001\n", true, "2001:db8::1:0:0:1"},
      {"0000:0000:0000:0000:0000:0000:0000:0000\n", true, "::", true},
      {"", false},
      {"::ffff:10.77.0.10", false},
      {"fe80::1", false},
      {"0000:0000:0000:0000:0000:ffff:0a4d", false},
      {"0000:0000:0000:0000:0000:ffff:0a4d:000a:0000", false},
      {"0000-0000-0000-0000-0000-ffff-0a4d-000a", false},
      {"0000:0000:0000:0000:0000:ffff:0a4d:00xa", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE("input: \"" + c.input + "\"");
    auto r = ParseGid(c.input);
    ASSERT_EQ(r.ok(), c.ok);
    if (!c.ok) continue;
    EXPECT_EQ(r->text, c.text);
    EXPECT_EQ(r->IsZero(), c.zero);
  }
  auto v4 = ParseGid("0000:0000:0000:0000:0000:ffff:0a4d:000a");
  ASSERT_TRUE(v4.ok());
  const std::array<uint8_t, 16> raw = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 10};
  EXPECT_EQ(v4->raw, raw);
}

TEST(SysfsParseTest, GidType) {
  EXPECT_EQ(*ParseGidType("RoCE v2\n"), GidType::kRoceV2);
  EXPECT_EQ(*ParseGidType("IB/RoCE v1\n"), GidType::kIbRoceV1);
  for (const char* bad : {"", "RoCE v3\n", "roce v2", "v2", "RoCE"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(ParseGidType(bad).ok());
  }
  EXPECT_EQ(GidTypeName(GidType::kRoceV2), "RoCE v2");
  EXPECT_EQ(GidTypeName(GidType::kIbRoceV1), "IB/RoCE v1");
}

TEST(SysfsParseTest, TrimSysfsValue) {
  EXPECT_EQ(TrimSysfsValue("rxe\n"), "rxe");
  EXPECT_EQ(TrimSysfsValue("\n"), "");
  EXPECT_EQ(TrimSysfsValue("a b \n\n"), "a b");
  EXPECT_EQ(TrimSysfsValue(""), "");
}

}  // namespace
}  // namespace rxe::collectors
