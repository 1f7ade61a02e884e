// ud_ping's pure parts: the wire format, the spread-out schedule, the tracker
// of outstanding pings (samples, loss on timeout, late/unknown pongs).
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "probes/ud_ping_tracker.h"
#include "probes/ud_wire.h"

namespace rxe::probes::ud {
namespace {

using std::chrono::milliseconds;

TEST(UdWire, RoundTripsEveryField) {
  Packet p;
  p.kind = Kind::kPong;
  p.seq = 0x0102030405060708ULL;
  for (size_t i = 0; i < 16; ++i) p.sender_gid[i] = static_cast<uint8_t>(0xa0 + i);
  p.sender_qpn = 0x00abcdef;
  p.sender_qkey = 0x11111111;
  p.ping_send_ns = 123456789012345ULL;
  p.resp_recv_ns = 42;
  p.resp_send_ns = 4242;
  std::array<uint8_t, 128> buf;
  buf.fill(0xff);
  Encode(p, buf);
  EXPECT_EQ(buf[127], 0) << "padding after the header is zeroed";
  EXPECT_EQ(buf[0], 0x52) << "magic is little-endian 'RXUD'";
  const auto q = Decode(buf);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->kind, Kind::kPong);
  EXPECT_EQ(q->seq, p.seq);
  EXPECT_EQ(q->sender_gid, p.sender_gid);
  EXPECT_EQ(q->sender_qpn, p.sender_qpn);
  EXPECT_EQ(q->sender_qkey, p.sender_qkey);
  EXPECT_EQ(q->ping_send_ns, p.ping_send_ns);
  EXPECT_EQ(q->resp_recv_ns, 42u);
  EXPECT_EQ(q->resp_send_ns, 4242u);
}

TEST(UdWire, RejectsShortForeignAndUnknownPackets) {
  std::array<uint8_t, kHeaderBytes> buf{};
  Encode(Packet{}, buf);
  std::string why;
  EXPECT_FALSE(Decode(std::span<const uint8_t>(buf).first(kHeaderBytes - 1), &why));
  EXPECT_EQ(why, "short packet");
  auto bad = buf;
  bad[0] ^= 1;
  EXPECT_FALSE(Decode(bad, &why));
  EXPECT_EQ(why, "bad magic");
  bad = buf;
  bad[4] = 2;
  EXPECT_FALSE(Decode(bad, &why));
  EXPECT_EQ(why, "unsupported version");
  bad = buf;
  bad[5] = 3;
  EXPECT_FALSE(Decode(bad, &why));
  EXPECT_EQ(why, "unknown kind");
}

TEST(UdSchedule, SpreadsPeersEvenlyOverTheInterval) {
  const Clock::time_point t0{};
  PingSchedule s(4, milliseconds(1000), t0);
  std::vector<std::pair<long, size_t>> got;
  for (int i = 0; i < 8; ++i) {
    const auto n = s.Next();
    ASSERT_TRUE(n);
    got.emplace_back(std::chrono::duration_cast<milliseconds>(n->first - t0).count(), n->second);
    s.Advance(n->first);
  }
  const std::vector<std::pair<long, size_t>> want = {{0, 0},    {250, 1},  {500, 2},  {750, 3},
                                                     {1000, 0}, {1250, 1}, {1500, 2}, {1750, 3}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(s.skipped_rounds(), 0u);
}

TEST(UdSchedule, SkipsMissedRoundsInsteadOfBursting) {
  const Clock::time_point t0{};
  PingSchedule s(2, milliseconds(100), t0);
  s.Advance(t0 + milliseconds(1000));  // the loop stalled for 1 s after sending peer 0's ping
  const auto n = s.Next();
  ASSERT_TRUE(n);
  EXPECT_EQ(n->second, 1u);
  EXPECT_GE(n->first + milliseconds(100), t0 + milliseconds(1000));
  EXPECT_GT(s.skipped_rounds(), 0u);
  EXPECT_FALSE(PingSchedule(0, milliseconds(100), t0).Next());
}

TEST(UdTracker, PongGivesNetworkRttMinusResponderDelay) {
  PingTracker t(milliseconds(500));
  const Clock::time_point t1{milliseconds(10)};
  const uint64_t seq = t.OnPosted(3, t1);
  // Responder held the ping for 2 ms (its own clock); pong arrives 7 ms after the post.
  const auto s = t.OnPong(seq, t1 + milliseconds(7), 5'000'000, 7'000'000);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->peer, 3u);
  EXPECT_NEAR(s->total_seconds, 0.007, 1e-12);
  EXPECT_NEAR(s->responder_seconds, 0.002, 1e-12);
  EXPECT_NEAR(s->network_seconds, 0.005, 1e-12);
  EXPECT_TRUE(s->valid);
  EXPECT_EQ(t.outstanding(), 0u);
  EXPECT_FALSE(t.OnPong(seq, t1 + milliseconds(9), 0, 0)) << "a duplicate pong is not a sample";
}

TEST(UdTracker, BadResponderClockIsZeroAndTooLongResponderDelayIsInvalid) {
  PingTracker t(milliseconds(500));
  const Clock::time_point t1{milliseconds(10)};
  const uint64_t seq = t.OnPosted(0, t1);
  const auto s = t.OnPong(seq, t1 + milliseconds(4), 9, 3);
  ASSERT_TRUE(s);
  EXPECT_NEAR(s->total_seconds, 0.004, 1e-12);
  EXPECT_EQ(s->responder_seconds, 0.0);
  EXPECT_NEAR(s->network_seconds, 0.004, 1e-12);
  EXPECT_TRUE(s->valid);
  // A responder delay longer than the whole round trip: a late software timestamp.
  const uint64_t seq2 = t.OnPosted(0, t1);
  const auto bad = t.OnPong(seq2, t1 + milliseconds(1), 0, 3'000'000);
  ASSERT_TRUE(bad);
  EXPECT_FALSE(bad->valid);
  EXPECT_EQ(bad->network_seconds, 0.0);
}

TEST(UdTracker, TimeoutsBecomeLossPerPeerInSendOrder) {
  PingTracker t(milliseconds(100));
  const Clock::time_point t0{};
  const uint64_t a = t.OnPosted(0, t0);
  t.OnPosted(1, t0 + milliseconds(30));
  t.OnPosted(2, t0 + milliseconds(60));
  EXPECT_EQ(t.NextDeadline(), t0 + milliseconds(100));
  EXPECT_TRUE(t.Expire(t0 + milliseconds(99)).empty());
  ASSERT_TRUE(t.OnPong(a, t0 + milliseconds(99), 0, 0));
  EXPECT_EQ(t.Expire(t0 + milliseconds(135)), std::vector<size_t>{1});
  EXPECT_EQ(t.Expire(t0 + milliseconds(1000)), std::vector<size_t>{2});
  EXPECT_FALSE(t.NextDeadline());
  const uint64_t d = t.OnPosted(4, t0 + milliseconds(2000));
  EXPECT_EQ(t.OnSendFailed(d), std::optional<size_t>(4));
  EXPECT_TRUE(t.Expire(t0 + milliseconds(9000)).empty()) << "a failed send is not a loss";
}

}  // namespace
}  // namespace rxe::probes::ud

namespace rxe::probes::ud {
namespace {

TEST(PingTrackerLate, ExpiredPingsAnsweredLateAreTakenOnce) {
  const auto t0 = Clock::now();
  PingTracker t(std::chrono::milliseconds(100));
  const uint64_t a = t.OnPosted(3, t0);
  const uint64_t b = t.OnPosted(4, t0 + std::chrono::milliseconds(10));
  EXPECT_EQ(t.Expire(t0 + std::chrono::milliseconds(105)), std::vector<size_t>{3});
  EXPECT_FALSE(t.OnPong(a, t0 + std::chrono::milliseconds(150), 0, 0)) << "too late for a sample";
  EXPECT_EQ(t.TakeLate(a), std::optional<size_t>(3));
  EXPECT_EQ(t.TakeLate(a), std::nullopt) << "a duplicate pong is not late twice";
  EXPECT_EQ(t.TakeLate(b), std::nullopt) << "still outstanding, not expired";
  EXPECT_EQ(t.TakeLate(999), std::nullopt);
  t.Clear();
  EXPECT_EQ(t.Expire(t0 + std::chrono::seconds(10)), std::vector<size_t>{});
}

TEST(PingTrackerLate, MemoryIsBounded) {
  const auto t0 = Clock::now();
  PingTracker t(std::chrono::milliseconds(1));
  const uint64_t first = t.OnPosted(0, t0);
  for (size_t i = 0; i < PingTracker::kLateMemory; ++i) t.OnPosted(1, t0);
  EXPECT_EQ(t.Expire(t0 + std::chrono::seconds(1)).size(), PingTracker::kLateMemory + 1);
  EXPECT_EQ(t.TakeLate(first), std::nullopt) << "the oldest was forgotten";
  EXPECT_EQ(t.TakeLate(first + 1), std::optional<size_t>(1));
}

}  // namespace
}  // namespace rxe::probes::ud
