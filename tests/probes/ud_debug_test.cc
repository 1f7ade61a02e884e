// /debug/ud_mesh's pure parts: the recent-RTT medians and the JSON (steady-clock instants
// shown as Unix times, "never" as null, the loss streak's start only during a streak).
#include <gtest/gtest.h>

#include "probes/ud_debug.h"

namespace rxe::probes {
namespace {

ud::Sample S(double network, double responder, bool valid = true) {
  ud::Sample s;
  s.network_seconds = network;
  s.responder_seconds = responder;
  s.total_seconds = network + responder;
  s.valid = valid;
  return s;
}

TEST(RecentRtt, MediansOfOddAndEvenCountsSkippingInvalidSamples) {
  RecentRtt r;
  EXPECT_FALSE(r.Median());
  r.Add(S(3e-3, 1e-4));
  r.Add(S(1e-3, 3e-4));
  r.Add(S(9.0, 9.0, false));  // one side's clock read late: not an RTT
  r.Add(S(2e-3, 2e-4));
  ASSERT_EQ(r.size(), 3u);
  auto m = r.Median();
  ASSERT_TRUE(m);
  EXPECT_NEAR(m->network, 2e-3, 1e-9);
  EXPECT_NEAR(m->responder, 2e-4, 1e-9);
  EXPECT_NEAR(m->total, 2.2e-3, 1e-9);
  r.Add(S(10e-3, 1e-4));
  m = r.Median();
  EXPECT_NEAR(m->network, 2.5e-3, 1e-9) << "even count: mean of the two middle samples";
}

TEST(RecentRtt, KeepsOnlyTheNewestSamples) {
  RecentRtt r;
  for (size_t i = 0; i < RecentRtt::kCapacity; ++i) r.Add(S(1.0, 0));
  for (size_t i = 0; i < RecentRtt::kCapacity / 2 + 1; ++i) r.Add(S(2e-3, 0));
  EXPECT_EQ(r.size(), RecentRtt::kCapacity);
  EXPECT_NEAR(r.Median()->network, 2e-3, 1e-9) << "the 1 s samples are mostly overwritten";
}

TEST(UdDebugJson, InstantsAreUnixTimesAndNeverIsNull) {
  UdDebugSnapshot s;
  s.interval_seconds = 0.1;
  s.timeout_seconds = 0.095;
  s.steady_now = ud::Clock::time_point(std::chrono::seconds(1000));
  s.wall_now = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000));
  UdDeviceDebug d;
  d.device = "rxe0";
  d.address.qpn = 17;
  d.peers = 2;
  s.devices.push_back(d);

  UdPairDebug dead;
  dead.module = "mesh";
  dead.peer = "vm2";
  dead.device = "rxe0";
  dead.fetch = "ok";
  dead.address = ud::EndpointAddress{{}, 18, 0x11111111};
  dead.report.sent = 10;
  dead.report.received = 7;
  dead.report.lost = 3;
  dead.report.loss_streak = 3;
  dead.report.streak_started_at = s.steady_now - std::chrono::milliseconds(250);
  dead.report.last_pong_at = s.steady_now - std::chrono::milliseconds(400);
  dead.report.last_answer_posted = s.steady_now - std::chrono::milliseconds(403);
  dead.rtt = RecentRtt::Medians{2.5e-3, 1e-4, 2.6e-3};
  dead.rtt_samples = 7;
  s.pairs.push_back(dead);

  UdPairDebug fresh;  // never fetched, never answered
  fresh.module = "mesh";
  fresh.peer = "vm3";
  fresh.fetch = "pending";
  fresh.report.streak_started_at = s.steady_now;  // stale: no streak running
  s.pairs.push_back(fresh);

  const std::string j = UdDebugJson(s);
  EXPECT_NE(j.find(R"({"interval_seconds":0.1,"timeout_seconds":0.095,"devices":[{"device":"rxe0","address":{"gid":"0000:0000:0000:0000:0000:0000:0000:0000","qpn":17},"peers":2}])"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find(R"("peer":"vm2","device":"rxe0","fetch":"ok","address":{"gid":"0000:0000:0000:0000:0000:0000:0000:0000","qpn":18},"sent":10,"received":7,"lost":3,"late":0,"send_errors":0,"loss_streak":3,"loss_streak_since_unix":1699999999.750000,"last_pong_unix":1699999999.600000,"last_answered_ping_sent_unix":1699999999.597000,"rtt_recent":{"samples":7,"network_median_seconds":0.0025,"responder_median_seconds":0.0001,"total_median_seconds":0.0026}})"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find(R"("peer":"vm3","device":"","fetch":"pending","address":null,"sent":0,"received":0,"lost":0,"late":0,"send_errors":0,"loss_streak":0,"loss_streak_since_unix":null,"last_pong_unix":null,"last_answered_ping_sent_unix":null,"rtt_recent":{"samples":0}})"),
            std::string::npos)
      << j;
}

}  // namespace
}  // namespace rxe::probes
