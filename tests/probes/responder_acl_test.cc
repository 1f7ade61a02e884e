#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>

#include "probes/responder_acl.h"

namespace rxe::probes {
namespace {

sockaddr_storage V4(const char* ip) {
  sockaddr_storage ss{};
  auto* s = reinterpret_cast<sockaddr_in*>(&ss);
  s->sin_family = AF_INET;
  ::inet_pton(AF_INET, ip, &s->sin_addr);
  return ss;
}

sockaddr_storage V6(const char* ip) {
  sockaddr_storage ss{};
  auto* s = reinterpret_cast<sockaddr_in6*>(&ss);
  s->sin6_family = AF_INET6;
  ::inet_pton(AF_INET6, ip, &s->sin6_addr);
  return ss;
}

TEST(ResponderAclTest, ParseCidr) {
  auto c = ParseCidr("10.1.0.0/16");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->family, AF_INET);
  EXPECT_EQ(c->prefix_len, 16);
  EXPECT_EQ(ParseCidr("10.1.2.3")->prefix_len, 32);
  EXPECT_EQ(ParseCidr("fd00::/8")->family, AF_INET6);
  EXPECT_EQ(ParseCidr("fd00::1")->prefix_len, 128);
  EXPECT_EQ(ParseCidr("::ffff:10.0.0.1")->family, AF_INET);  // v4-mapped -> IPv4
  EXPECT_EQ(ParseCidr("0.0.0.0/0")->prefix_len, 0);
  for (const char* bad : {"", "10.0.0.0/", "10.0.0.0/33", "fd00::/129", "10.0.0.1/8", "nonsense/8",
                          "10.0.0.0/x", "10.0.0.0/8/8", "10.0.0.0/-1"}) {
    EXPECT_FALSE(ParseCidr(bad).ok()) << bad;
  }
}

TEST(ResponderAclTest, AllowsPeersAndCidrs) {
  auto acl = SourceAcl::Make({"10.9.0.0/24", "fd00:1::/32"}, {"192.0.2.5", "2001:db8::7", "not-an-ip"});
  ASSERT_TRUE(acl.ok());
  EXPECT_TRUE(acl->Allows(V4("10.9.0.200")));
  EXPECT_FALSE(acl->Allows(V4("10.9.1.1")));
  EXPECT_TRUE(acl->Allows(V4("192.0.2.5")));
  EXPECT_FALSE(acl->Allows(V4("192.0.2.6")));
  EXPECT_TRUE(acl->Allows(V6("::ffff:10.9.0.3")));  // dual-stack listener sees v4-mapped
  EXPECT_TRUE(acl->Allows(V6("2001:db8::7")));
  EXPECT_TRUE(acl->Allows(V6("fd00:1:ffff::1")));
  EXPECT_FALSE(acl->Allows(V6("fd00:2::1")));
  EXPECT_FALSE(SourceAcl::Make({"10.0.0.1/8"}, {}).ok());
  auto none = SourceAcl::Make({}, {});
  EXPECT_FALSE(none->Allows(V4("127.0.0.1")));
  auto odd = SourceAcl::Make({"10.8.0.0/13"}, {});
  EXPECT_TRUE(odd->Allows(V4("10.15.255.255")));
  EXPECT_FALSE(odd->Allows(V4("10.16.0.0")));
}

TEST(ResponderAclTest, ResolvesLiteralPeers) {
  std::vector<config::Peer> peers{{"a", "10.0.0.1", 19792, {}}, {"b", "fd00::2", 19792, {}},
                                  {"c", "localhost", 19792, {}}};
  auto ips = ResolvePeerAddresses(peers);
  ASSERT_GE(ips.size(), 3u);
  EXPECT_EQ(ips[0], "10.0.0.1");
  EXPECT_EQ(ips[1], "fd00::2");
}

TEST(ResponderAclTest, ParseListenAddress) {
  auto any = ParseListenAddress(":19792");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->host, "");
  EXPECT_EQ(any->port, 19792);
  EXPECT_EQ(ParseListenAddress("10.0.0.1:1")->host, "10.0.0.1");
  EXPECT_EQ(ParseListenAddress("[::]:0")->host, "::");
  EXPECT_EQ(ParseListenAddress("[fd00::1]:19792")->port, 19792);
  for (const char* bad : {"", "19792", ":", ":65536", "fd00::1:19792", "[fd00::1]", "[fd00::1]19792",
                          "host.example:19792", "10.0.0.1:x"}) {
    EXPECT_FALSE(ParseListenAddress(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace rxe::probes
