// HOST[:PORT] peer addresses given on a command line (sweep --peer, doctor --peer).
#include "config/peer_address.h"

#include <gtest/gtest.h>

namespace rxe::config {
namespace {

TEST(PeerAddress, HostPortAndBracketedV6) {
  EXPECT_EQ(ParsePeerAddress("10.0.0.2")->port, 19792);
  EXPECT_EQ(ParsePeerAddress("host-b:1234")->address, "host-b");
  EXPECT_EQ(ParsePeerAddress("[fd00::1]:5")->address, "fd00::1");
  EXPECT_EQ(ParsePeerAddress("[fd00::1]:5")->port, 5);
  EXPECT_FALSE(ParsePeerAddress("[fd00::1").ok());
}

TEST(PeerAddress, HostPortErrorsSayOnlyWhatIsWrong) {
  EXPECT_EQ(ParseHostPort("host-b:19800")->port, 19800);
  EXPECT_EQ(ParseHostPort("fd00::1")->address, "fd00::1") << "bare IPv6, default port";
  EXPECT_EQ(ParseHostPort("[fd00::1]:").error().message, "empty port in \"[fd00::1]:\"");
  EXPECT_EQ(ParseHostPort("h:").error().message, "empty port in \"h:\"");
  EXPECT_EQ(ParseHostPort("h:0").error().message, "bad port \"0\" (1..65535)");
  EXPECT_EQ(ParseHostPort(":1").error().message, "empty host in \":1\"");
}

TEST(PeerAddress, ErrorsNameTheFlag) {
  auto bad = ParsePeerAddress("h:0");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "--peer: bad port \"0\" (1..65535)");
  EXPECT_EQ(ParsePeerAddress("").error().message.rfind("--peer: required", 0), 0u);
}

}  // namespace
}  // namespace rxe::config
