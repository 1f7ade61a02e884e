#include "exporter/listen_address.h"

#include <gtest/gtest.h>

namespace rxe::exporter {
namespace {

struct Good {
  std::string text, host;
  int port;
  bool fallback;
};

void PrintTo(const Good& g, std::ostream* os) { *os << g.text; }

class ListenAddressGood : public ::testing::TestWithParam<Good> {};

TEST_P(ListenAddressGood, Parses) {
  auto a = ParseListenAddress(GetParam().text);
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->text, GetParam().text);
  EXPECT_EQ(a->host, GetParam().host);
  EXPECT_EQ(a->port, GetParam().port);
  EXPECT_EQ(a->ipv4_fallback, GetParam().fallback);
}

INSTANTIATE_TEST_SUITE_P(
    All, ListenAddressGood,
    ::testing::Values(Good{":19791", "::", 19791, true}, Good{"[::]:19791", "::", 19791, false},
                      Good{"0.0.0.0:80", "0.0.0.0", 80, false},
                      Good{"127.0.0.1:0", "127.0.0.1", 0, false},
                      Good{"[::1]:65535", "::1", 65535, false},
                      Good{"[fe80::1%eth0]:1", "fe80::1%eth0", 1, false},
                      Good{"localhost:9", "localhost", 9, false},
                      Good{"exporter.example.org:19791", "exporter.example.org", 19791, false}));

struct Bad {
  std::string text, why;
};

void PrintTo(const Bad& b, std::ostream* os) { *os << b.text; }

class ListenAddressBad : public ::testing::TestWithParam<Bad> {};

TEST_P(ListenAddressBad, ExactMessage) {
  auto a = ParseListenAddress(GetParam().text);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(a.error().message, "invalid listen address \"" + GetParam().text + "\": " +
                                   GetParam().why + " (expected host:port, :port or [ipv6]:port)");
}

INSTANTIATE_TEST_SUITE_P(
    All, ListenAddressBad,
    ::testing::Values(Bad{"", "empty"}, Bad{"19791", "missing port"},
                      Bad{"vsock://:9100", "URL schemes are not supported"},
                      Bad{":", "port must be a number between 0 and 65535, got \"\""},
                      Bad{":65536", "port must be a number between 0 and 65535, got \"65536\""},
                      Bad{":http", "port must be a number between 0 and 65535, got \"http\""},
                      Bad{":-1", "port must be a number between 0 and 65535, got \"-1\""},
                      Bad{"::1:80", "IPv6 addresses must be in brackets, e.g. [::1]:19791"},
                      Bad{"[::1:80", "unterminated or empty IPv6 literal"},
                      Bad{"[]:80", "unterminated or empty IPv6 literal"},
                      Bad{"[1.2.3.4]:80", "\"1.2.3.4\" is not an IPv6 address"},
                      Bad{"[fe80::1%]:80", "\"fe80::1%\" is not an IPv6 address"},
                      Bad{"a b:80", "\"a b\" is not a host name or IP"}));

TEST(ListenAddress, HostPort) {
  EXPECT_EQ(ParseListenAddress("[::1]:0")->HostPort(1234), "[::1]:1234");
  EXPECT_EQ(ParseListenAddress("127.0.0.1:0")->HostPort(80), "127.0.0.1:80");
}

}  // namespace
}  // namespace rxe::exporter
