// ScanRequestHead: where a request head ends, and the size/line limits.
#include "exporter/http_limits.h"

#include <gtest/gtest.h>

#include <string>

namespace rxe::exporter {
namespace {

TEST(ScanRequestHead, CompleteHeadEndsAfterTheBlankLine) {
  const std::string head = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  const HeadScan s = ScanRequestHead(head + "body", 1024, 10);
  EXPECT_EQ(s.state, HeadState::kComplete);
  EXPECT_EQ(s.size, head.size());
}

TEST(ScanRequestHead, PartialHeadIsIncomplete) {
  EXPECT_EQ(ScanRequestHead("GET / HTTP/1.1\r\nHost: x\r\n", 1024, 10).state,
            HeadState::kIncomplete);
  EXPECT_EQ(ScanRequestHead("", 1024, 10).state, HeadState::kIncomplete);
}

TEST(ScanRequestHead, LongerThanTheCapIsTooLarge) {
  const std::string big = "GET / HTTP/1.1\r\nX: " + std::string(2000, 'a');
  EXPECT_EQ(ScanRequestHead(big, 1024, 10).state, HeadState::kTooLarge);
  // A blank line beyond the cap does not count.
  EXPECT_EQ(ScanRequestHead(big + "\r\n\r\n", 1024, 10).state, HeadState::kTooLarge);
  // Exactly at the cap is fine.
  const std::string exact = "GET / HTTP/1.1\r\nX: " + std::string(1024 - 23, 'a') + "\r\n\r\n";
  ASSERT_EQ(exact.size(), 1024u);
  EXPECT_EQ(ScanRequestHead(exact, 1024, 10).state, HeadState::kComplete);
}

TEST(ScanRequestHead, MoreHeaderLinesThanTheCap) {
  std::string head = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 3; ++i) head += "X: 1\r\n";
  EXPECT_EQ(ScanRequestHead(head + "\r\n", 1024, 3).state, HeadState::kComplete);
  EXPECT_EQ(ScanRequestHead(head + "X: 1\r\n\r\n", 1024, 3).state, HeadState::kTooManyLines);
}

}  // namespace
}  // namespace rxe::exporter
