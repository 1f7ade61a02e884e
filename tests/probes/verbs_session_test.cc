// Pieces of the verbs engine that run without an RDMA device: parameter
// validation and sizing, MTU helpers, warm-up, latency sample definition,
// stop checks, and the failure paths of RdmaSession::Create before any
// device is opened. The data path itself is exercised in the lab
// (tests/lab/cases/probe_engine.sh, perftest_agreement.sh).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <variant>

#include "probes/engine.h"
#include "probes/rdma_session_params.h"
#include "probes/verbs_device.h"
#include "probes/verbs_poll.h"
#include "probes/verbs_stream.h"

namespace rxe::probes {
namespace {

using config::ProbeType;
using namespace std::chrono_literals;

SessionParams Params(ProbeType type) {
  SessionParams p;
  p.type = type;
  if (!config::IsBandwidth(type)) p.size = 2;
  return p;
}

SessionShape Shape(const SessionParams& p, Role role, uint64_t max = 4u << 20) {
  auto r = ShapeSession(p, role, max);
  EXPECT_TRUE(std::holds_alternative<SessionShape>(r)) << std::get<std::string>(r);
  return std::holds_alternative<SessionShape>(r) ? std::get<SessionShape>(r) : SessionShape{};
}

std::string ShapeError(const SessionParams& p, uint64_t max = 4u << 20) {
  auto r = ShapeSession(p, Role::kClient, max);
  return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : "";
}

TEST(ShapeSessionTest, WriteBwDefaults) {
  SessionShape c = Shape(Params(ProbeType::kWriteBw), Role::kClient);
  EXPECT_EQ(c.qps, 1u);
  EXPECT_EQ(c.sq_depth, 128u);
  EXPECT_EQ(c.rx_depth, 1u);
  EXPECT_EQ(c.region_bytes, 65536u);
  EXPECT_EQ(c.buffer_bytes, 131072u);
  SessionShape r = Shape(Params(ProbeType::kWriteBw), Role::kResponder);
  EXPECT_EQ(r.sq_depth, 1u);
  EXPECT_EQ(r.rx_depth, 1u);
}

TEST(ShapeSessionTest, SendBwResponderHasEnoughReceives) {
  SessionParams p = Params(ProbeType::kSendBw);
  p.qps = 4;
  EXPECT_EQ(Shape(p, Role::kResponder).rx_depth, 512u);
  EXPECT_EQ(Shape(p, Role::kResponder).qps, 4u);
  p.tx_depth = 1024;
  EXPECT_EQ(Shape(p, Role::kResponder).rx_depth, 2048u);
  EXPECT_EQ(Shape(p, Role::kClient).rx_depth, 1u);
}

TEST(ShapeSessionTest, LatencyUsesOneQpAndDepthOne) {
  SessionParams p = Params(ProbeType::kSendLat);
  p.qps = 8;
  SessionShape s = Shape(p, Role::kClient);
  EXPECT_EQ(s.qps, 1u);
  EXPECT_EQ(s.rx_depth, kLatencyRxDepth);
  EXPECT_EQ(s.region_bytes, 64u);  // 2 bytes rounded up
  // ib_send_lat leaves 99 of every 100 SENDs unsignalled: they hold SQ slots.
  EXPECT_EQ(s.sq_depth, kSendLatSignalEvery + 1);
  EXPECT_EQ(Shape(p, Role::kResponder).sq_depth, kSendLatSignalEvery + 1);
  EXPECT_EQ(Shape(Params(ProbeType::kWriteLat), Role::kResponder).rx_depth, 1u);
  EXPECT_EQ(Shape(Params(ProbeType::kWriteLat), Role::kClient).sq_depth, 2u);
}

TEST(ShapeSessionTest, RejectsInvalidParams) {
  SessionParams p = Params(ProbeType::kWriteBw);
  p.size = 0;
  EXPECT_NE(ShapeError(p), "");
  p = Params(ProbeType::kWriteBw);
  p.mtu = 1500;
  EXPECT_NE(ShapeError(p).find("mtu"), std::string::npos);
  p = Params(ProbeType::kWriteBw);
  p.cq_moderation = 100;
  p.post_list = 32;  // 100 + 32 - 1 > 128
  EXPECT_NE(ShapeError(p).find("tx_depth"), std::string::npos);
  p = Params(ProbeType::kWriteBw);
  p.qps = 0;
  EXPECT_NE(ShapeError(p), "");
  p = Params(ProbeType::kWriteBw);
  p.duration = 0ms;
  EXPECT_NE(ShapeError(p), "");
  p = Params(ProbeType::kSendLat);
  p.iterations = 0;
  EXPECT_NE(ShapeError(p), "");
}

TEST(ShapeSessionTest, UseEventOnlyForSendLat) {
  SessionParams p = Params(ProbeType::kSendLat);
  p.use_event = true;
  EXPECT_EQ(Shape(p, Role::kResponder).rx_depth, kLatencyRxDepth);
  for (ProbeType t : {ProbeType::kWriteBw, ProbeType::kSendBw, ProbeType::kWriteLat}) {
    p = Params(t);
    p.use_event = true;
    EXPECT_EQ(ShapeError(p), "use_event (completion events) is only supported by send_lat probes");
  }
}

TEST(ShapeSessionTest, BufferCap) {
  SessionParams p = Params(ProbeType::kWriteBw);  // 2 x 64 KiB
  EXPECT_NE(ShapeError(p, 131071).find("max_buffer_bytes"), std::string::npos);
  EXPECT_EQ(ShapeError(p, 131072), "");
}

// Send-type responders registered their buffer with REMOTE_WRITE they never need.
TEST(ShapeSessionTest, RemoteWriteOnlyWhereThePeerWrites) {
  using config::ProbeType;
  EXPECT_TRUE(PeerWritesHere(ProbeType::kWriteBw, Role::kResponder));
  EXPECT_FALSE(PeerWritesHere(ProbeType::kWriteBw, Role::kClient));
  EXPECT_TRUE(PeerWritesHere(ProbeType::kWriteLat, Role::kResponder));
  EXPECT_TRUE(PeerWritesHere(ProbeType::kWriteLat, Role::kClient));
  for (Role r : {Role::kResponder, Role::kClient}) {
    EXPECT_FALSE(PeerWritesHere(ProbeType::kSendBw, r));
    EXPECT_FALSE(PeerWritesHere(ProbeType::kSendLat, r));
  }
}

TEST(RdmaSessionCreateTest, ResponderRejectsBadParamsBeforeTouchingDevices) {
  SessionParams p = Params(ProbeType::kWriteBw);
  p.size = 8u << 20;
  auto r = RdmaSession::Create(p, Role::kResponder, LocalTarget{}, 4u << 20);
  ASSERT_TRUE(std::holds_alternative<ProbeFailure>(r));
  EXPECT_EQ(std::get<ProbeFailure>(r).reason, FailureReason::kRejected);
  auto c = RdmaSession::Create(p, Role::kClient, LocalTarget{}, 4u << 20);
  ASSERT_TRUE(std::holds_alternative<ProbeFailure>(c));
  EXPECT_EQ(std::get<ProbeFailure>(c).reason, FailureReason::kInternal);
}

TEST(RdmaSessionCreateTest, UnknownDeviceIsNoDevice) {
  LocalTarget where;
  where.device = "no_such_rdma_dev";
  auto r = RdmaSession::Create(Params(ProbeType::kSendLat), Role::kClient, where, 4u << 20);
  ASSERT_TRUE(std::holds_alternative<ProbeFailure>(r));
  EXPECT_EQ(std::get<ProbeFailure>(r).reason, FailureReason::kNoDevice);
}

TEST(VerbsMtuTest, EnumBytesRoundTrip) {
  for (uint32_t b : {256u, 512u, 1024u, 2048u, 4096u}) {
    auto e = verbs::MtuFromBytes(b);
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(verbs::MtuBytes(*e), b);
  }
  EXPECT_EQ(verbs::MtuBytes(IBV_MTU_1024), 1024u);
  EXPECT_FALSE(verbs::MtuFromBytes(1500).has_value());
  EXPECT_EQ(verbs::MtuBytes(0), 0u);
}

TEST(VerbsStreamTest, WarmUpIsATenthCappedAt250ms) {
  EXPECT_EQ(WarmUp(1s), std::chrono::duration_cast<Clock::duration>(100ms));
  EXPECT_EQ(WarmUp(3s), std::chrono::duration_cast<Clock::duration>(250ms));
  EXPECT_EQ(WarmUp(0s), Clock::duration::zero());
}

TEST(VerbsPollTest, SamplesAreDifferencesOfPostTimes) {
  Clock::time_point t0{};
  std::vector<Clock::time_point> t = {t0, t0 + 10us, t0 + 25us, t0 + 31us};
  std::vector<double> d = StampDeltasSeconds(t);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_NEAR(d[0], 10e-6, 1e-12);
  EXPECT_NEAR(d[1], 15e-6, 1e-12);
  EXPECT_NEAR(d[2], 6e-6, 1e-12);
  EXPECT_TRUE(StampDeltasSeconds({t0}).empty());
}

TEST(VerbsPollTest, StopCheckCancelDeadlineAndDone) {
  std::atomic<bool> cancel{false}, done{false};
  StopCheck stop(Clock::now() + 1h, cancel, &done);
  EXPECT_FALSE(stop.Check().has_value());
  EXPECT_FALSE(stop.Done());
  done = true;
  EXPECT_TRUE(stop.Done());
  cancel = true;
  auto f = stop.Check();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->reason, FailureReason::kTimeout);
  EXPECT_EQ(f->detail, "cancelled");

  std::atomic<bool> no_cancel{false};
  StopCheck late(Clock::now() - 1s, no_cancel);
  auto t = late.CheckAt(Clock::now());
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->reason, FailureReason::kTimeout);
  bool fired = false;  // Check() reads the clock every kClockEvery calls
  for (uint32_t i = 0; i < StopCheck::kClockEvery && !fired; ++i) fired = late.Check().has_value();
  EXPECT_TRUE(fired);
}

}  // namespace
}  // namespace rxe::probes
