#include "config/units.h"

#include <gtest/gtest.h>

namespace rxe::config {
namespace {

using std::chrono::milliseconds;

TEST(ParseDurationTest, AcceptsPrometheusDurations) {
  const std::pair<const char*, int64_t> kCases[] = {
      {"0", 0},           {"0s", 0},          {"500ms", 500},     {"1s", 1000},
      {"10s", 10000},     {"1m30s", 90000},   {"2h", 7200000},    {"1h1m1s1ms", 3661001},
      {"1d", 86400000},   {"1w", 604800000},  {"1y", 31536000000}, {"90s", 90000},
      {"1m500ms", 60500},
  };
  for (const auto& [text, ms] : kCases) {
    const auto d = ParseDuration(text);
    ASSERT_TRUE(d.has_value()) << text;
    EXPECT_EQ(d->count(), ms) << text;
  }
}

TEST(ParseDurationTest, RejectsOtherForms) {
  for (const char* text : {"", "10", "1.5s", "-1s", "1 s", "s", "1S", "30s1m", "1s1s", "1ms1s",
                           "1sec", "1m 30s", "99999999999999999999s", "1000000000y"}) {
    EXPECT_FALSE(ParseDuration(text).has_value()) << text;
  }
}

TEST(FormatDurationTest, IsCanonical) {
  EXPECT_EQ(FormatDuration(milliseconds(0)), "0s");
  EXPECT_EQ(FormatDuration(milliseconds(500)), "500ms");
  EXPECT_EQ(FormatDuration(milliseconds(90000)), "1m30s");
  EXPECT_EQ(FormatDuration(milliseconds(7200000)), "2h");
  EXPECT_EQ(FormatDuration(milliseconds(86400000 + 1)), "1d1ms");
  for (const char* text : {"1m30s", "2h", "500ms", "1w2d3h4m5s6ms"}) {
    EXPECT_EQ(FormatDuration(*ParseDuration(text)), text);
  }
}

TEST(ParseBytesTest, AcceptsIntegersAndBinarySuffixes) {
  const std::pair<const char*, uint64_t> kCases[] = {
      {"0", 0},           {"1", 1},          {"65536", 65536}, {"64B", 64},
      {"64KiB", 65536},   {"1MiB", 1048576}, {"8MiB", 8388608}, {"2GiB", 2147483648ULL},
      {"18446744073709551615", 18446744073709551615ULL},
  };
  for (const auto& [text, bytes] : kCases) {
    const auto v = ParseBytes(text);
    ASSERT_TRUE(v.has_value()) << text;
    EXPECT_EQ(*v, bytes) << text;
  }
}

TEST(ParseBytesTest, RejectsOtherForms) {
  for (const char* text : {"", "KiB", "64KB", "64k", "64 KiB", "-1", "1.5MiB", "64kib",
                           "18446744073709551616", "17179869184GiB", "0x10"}) {
    EXPECT_FALSE(ParseBytes(text).has_value()) << text;
  }
}

TEST(FormatBytesTest, UsesLargestExactUnit) {
  EXPECT_EQ(FormatBytes(0), "0");
  EXPECT_EQ(FormatBytes(512), "512");
  EXPECT_EQ(FormatBytes(1000), "1000");
  EXPECT_EQ(FormatBytes(4096), "4KiB");
  EXPECT_EQ(FormatBytes(8388608), "8MiB");
  EXPECT_EQ(FormatBytes(1ULL << 30), "1GiB");
  EXPECT_EQ(FormatBytes(1536 * 1024), "1536KiB");
}

}  // namespace
}  // namespace rxe::config
