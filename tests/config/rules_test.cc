#include "config/rules.h"

#include <gtest/gtest.h>

namespace rxe::config {
namespace {

TEST(RulesTest, Names) {
  for (const char* ok : {"a", "host-b", "host_b.example", "B2", "10.0.0.2"}) {
    EXPECT_TRUE(IsValidName(ok)) << ok;
  }
  for (const char* bad : {"", "host b", "a/b", "a:b", "ä"}) EXPECT_FALSE(IsValidName(bad)) << bad;
  EXPECT_TRUE(IsValidDeviceName("rxe0"));
  EXPECT_FALSE(IsValidDeviceName(std::string(64, 'a')));
}

TEST(RulesTest, LabelNames) {
  for (const char* ok : {"rack", "_x", "Zone_2"}) EXPECT_TRUE(IsValidLabelName(ok)) << ok;
  for (const char* bad : {"", "1rack", "__meta", "a-b", "a.b"}) {
    EXPECT_FALSE(IsValidLabelName(bad)) << bad;
  }
  for (const char* reserved : {"peer", "module", "device", "port", "reason", "counter", "instance",
                               "job", "le"}) {
    EXPECT_TRUE(IsReservedLabelName(reserved)) << reserved;
  }
  EXPECT_FALSE(IsReservedLabelName("rack"));
}

TEST(RulesTest, Hosts) {
  for (const char* ok : {"10.0.0.2", "fd00::1", "::1", "localhost", "host-b.example.org",
                         "host-b.example.org.", "h0"}) {
    EXPECT_EQ(CheckHost(ok), std::nullopt) << ok;
  }
  EXPECT_EQ(CheckHost(""), "empty host");
  EXPECT_EQ(CheckHost("10.0.0.256"), "invalid IPv4 address");
  EXPECT_EQ(CheckHost("10.0.0"), "invalid IPv4 address");
  EXPECT_EQ(CheckHost("fd00::1::2"), "invalid IPv6 address");
  EXPECT_EQ(CheckHost("[::1]"), "invalid IPv6 address");
  EXPECT_EQ(CheckHost("[host]"), "invalid host name");
  EXPECT_EQ(CheckHost("-bad.example"), "invalid host name");
  EXPECT_EQ(CheckHost("a..b"), "invalid host name");
  EXPECT_EQ(CheckHost("host_b"), "invalid host name");
}

TEST(RulesTest, ListenAddresses) {
  for (const char* ok : {":19792", "0.0.0.0:19792", "10.0.0.1:1", "[::]:19792",
                         "[fd00::1]:65535", "localhost:19792"}) {
    EXPECT_EQ(CheckListenAddress(ok), std::nullopt) << ok;
  }
  EXPECT_EQ(CheckListenAddress("19792"), "missing port");
  EXPECT_EQ(CheckListenAddress("10.0.0.1:"), "missing port");
  EXPECT_EQ(CheckListenAddress("[::1]"), "missing port");
  EXPECT_EQ(CheckListenAddress("[::1"), "missing ]");
  EXPECT_EQ(CheckListenAddress("[10.0.0.1]:1"), "invalid IPv6 address");
  EXPECT_EQ(CheckListenAddress("::1:19792"), "IPv6 addresses need brackets");
  EXPECT_EQ(CheckListenAddress(":0"), "port must be 1..65535");
  EXPECT_EQ(CheckListenAddress(":65536"), "port must be 1..65535");
  EXPECT_EQ(CheckListenAddress(":http"), "port must be 1..65535");
  EXPECT_EQ(CheckListenAddress(":1234567"), "port must be 1..65535");
  EXPECT_EQ(CheckListenAddress("10.0.0.300:1"), "invalid IPv4 address");
}

TEST(RulesTest, Cidrs) {
  for (const char* ok : {"10.0.0.0/8", "10.1.2.3/32", "0.0.0.0/0", "fd00::/64", "::/0",
                         "fd00::1/128"}) {
    EXPECT_EQ(CheckCidr(ok), std::nullopt) << ok;
  }
  EXPECT_EQ(CheckCidr("10.0.0.0"), "missing /prefix");
  EXPECT_EQ(CheckCidr("10.0.0/8"), "invalid IP address");
  EXPECT_EQ(CheckCidr("10.0.0.0/33"), "prefix length must be 0..32");
  EXPECT_EQ(CheckCidr("fd00::/129"), "prefix length must be 0..128");
  EXPECT_EQ(CheckCidr("10.0.0.0/"), "prefix length must be 0..32");
  EXPECT_EQ(CheckCidr("10.0.0.0/x"), "prefix length must be 0..32");
  EXPECT_EQ(CheckCidr("10.0.0.1/8"), "host bits are set");
  EXPECT_EQ(CheckCidr("fd00::1/64"), "host bits are set");
}

TEST(RulesTest, Regexes) {
  EXPECT_EQ(CheckRegex("rxe.*"), std::nullopt);
  EXPECT_EQ(CheckRegex(""), std::nullopt);
  EXPECT_EQ(CheckRegex("rxe("), "unbalanced ( )");
  EXPECT_EQ(CheckRegex("rxe)"), "unbalanced ( )");
  EXPECT_EQ(CheckRegex("[z-a]"), "invalid character range");
  EXPECT_EQ(CheckRegex("rxe{2,1}"), "invalid range in { }");
  EXPECT_EQ(CheckRegex("rxe\\"), "invalid escape sequence");
}

}  // namespace
}  // namespace rxe::config
