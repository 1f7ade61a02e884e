// SchedulerCore decisions with a fake time (every call takes `now`).
#include <gtest/gtest.h>

#include <set>

#include "probes/scheduler.h"

namespace rxe::probes {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const Clock::time_point kT0 = Clock::time_point{} + std::chrono::hours(1000);

SchedulerLimits NoJitter(uint32_t max_concurrent = 10) {
  SchedulerLimits l;
  l.max_concurrent = max_concurrent;
  l.jitter_fraction = 0;
  return l;
}

JobSpec Job(std::string module, std::string peer, bool bw, std::string device = "rxe0",
            Clock::duration interval = seconds(10), uint64_t bytes = 0) {
  return JobSpec{{std::move(module), std::move(peer)}, interval, bw, std::move(device), bytes};
}

std::set<std::string> Peers(const std::vector<PairKey>& keys) {
  std::set<std::string> s;
  for (const auto& k : keys) s.insert(k.peer);
  return s;
}

TEST(SchedulerCoreTest, RunsEveryIntervalAfterItsSplay) {
  SchedulerCore s(NoJitter());
  JobSpec j = Job("bw", "a", true);
  s.SetJobs({j}, kT0);
  Clock::time_point first = kT0 + Splay(j.key, j.interval);
  EXPECT_EQ(s.NextDue(j.key), first);
  if (first > kT0) {
    EXPECT_TRUE(s.Due(first - milliseconds(1)).empty());
  }
  ASSERT_EQ(s.Due(first).size(), 1u);
  EXPECT_TRUE(s.IsRunning(j.key));
  s.Finished(j.key, first + milliseconds(1500), "rxe0", 1000);
  EXPECT_EQ(s.NextDue(j.key), first + seconds(10));  // on the grid, not completion + interval
  EXPECT_TRUE(s.Due(first + seconds(9)).empty());
  EXPECT_EQ(s.Due(first + seconds(10)).size(), 1u);
  EXPECT_LE(s.NextWakeup(first + seconds(10)), first + seconds(11));
}

TEST(SchedulerCoreTest, SplayIsDeterministicAndSpread) {
  const auto interval = seconds(60);
  std::vector<int> buckets(6, 0);
  for (int i = 0; i < 120; ++i) {
    PairKey k{"lat", "peer" + std::to_string(i)};
    auto off = Splay(k, interval);
    EXPECT_EQ(off, Splay(k, interval));
    ASSERT_GE(off, Clock::duration::zero());
    ASSERT_LT(off, interval);
    buckets[static_cast<size_t>(off / seconds(10))]++;
  }
  for (int n : buckets) EXPECT_GE(n, 8) << "splay clumps";
  EXPECT_NE(Splay({"ab", "c"}, interval), Splay({"a", "bc"}, interval));
}

TEST(SchedulerCoreTest, JitterIsSmallAndBounded) {
  SchedulerLimits l;
  l.jitter_fraction = 0.05;
  l.max_jitter = seconds(2);
  SchedulerCore s(l, 42);
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 50; ++i) jobs.push_back(Job("lat", "p" + std::to_string(i), false, "rxe0", seconds(100)));
  s.SetJobs(jobs, kT0);
  for (const auto& j : jobs) {
    auto extra = s.NextDue(j.key) - (kT0 + Splay(j.key, j.interval));
    EXPECT_GE(extra, Clock::duration::zero());
    EXPECT_LE(extra, seconds(2));
  }
}

TEST(SchedulerCoreTest, NeverOverlapsAndSkipsMissedSlots) {
  SchedulerCore s(NoJitter());
  JobSpec j = Job("bw", "a", true, "rxe0", seconds(1));
  s.SetJobs({j}, kT0);
  Clock::time_point t = kT0 + Splay(j.key, j.interval);
  ASSERT_EQ(s.Due(t).size(), 1u);
  for (int i = 1; i <= 5; ++i) EXPECT_TRUE(s.Due(t + seconds(i)).empty()) << "overlapping run";
  s.Finished(j.key, t + milliseconds(5500), "rxe0", 0);
  EXPECT_EQ(s.NextDue(j.key), t + seconds(6));  // slots 1..5 skipped
  // Re-adding a running pair does not start a second run.
  ASSERT_EQ(s.Due(t + seconds(6)).size(), 1u);
  s.SetJobs({j}, t + seconds(6));
  EXPECT_TRUE(s.Due(t + seconds(8)).empty());
}

TEST(SchedulerCoreTest, GlobalConcurrencyLimit) {
  SchedulerCore s(NoJitter(2));
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 5; ++i) jobs.push_back(Job("lat", "p" + std::to_string(i), false, "rxe" + std::to_string(i)));
  s.SetJobs(jobs, kT0);
  Clock::time_point t = kT0 + seconds(10);  // everything is due
  auto started = s.Due(t);
  EXPECT_EQ(started.size(), 2u);
  EXPECT_EQ(s.RunningCount(), 2u);
  EXPECT_EQ(s.Deferred(DeferReason::kConcurrency), 3u);
  EXPECT_TRUE(s.Due(t + milliseconds(50)).empty());
  EXPECT_EQ(s.Deferred(DeferReason::kConcurrency), 3u);  // once per due run, not per check
  s.Finished(started[0], t + milliseconds(100), "", 0);
  EXPECT_EQ(s.Due(t + milliseconds(100)).size(), 1u);
  EXPECT_EQ(s.RunningCount(), 2u);
  EXPECT_LE(s.NextWakeup(t + milliseconds(100)), t + milliseconds(150));  // deferred: poll soon
}

TEST(SchedulerCoreTest, BandwidthProbesAreExclusivePerDevice) {
  SchedulerCore s(NoJitter());
  s.SetJobs({Job("bw", "a", true, "rxe0"), Job("bw", "b", true, "rxe0"), Job("bw", "c", true, "rxe1"),
             Job("lat", "d", false, "rxe0"), Job("lat", "e", false, "rxe2"), Job("lat", "f", false, "rxe2")},
            kT0);
  Clock::time_point t = kT0 + seconds(10);
  auto first = s.Due(t);
  auto peers = Peers(first);
  // One bandwidth probe on rxe0 (a or b), c on rxe1, both latency probes on rxe2.
  EXPECT_EQ(peers.count("c"), 1u);
  EXPECT_EQ(peers.count("e") + peers.count("f"), 2u);
  EXPECT_EQ(peers.count("a") + peers.count("b"), 1u);
  EXPECT_EQ(peers.count("d"), 0u) << "latency alongside bandwidth on rxe0";
  PairKey running_bw = peers.count("a") ? PairKey{"bw", "a"} : PairKey{"bw", "b"};
  s.Finished(running_bw, t + seconds(1), "rxe0", 0);
  auto second = Peers(s.Due(t + seconds(1)));
  // The older deferred bandwidth probe goes first; d still waits behind it.
  EXPECT_EQ(second.size(), 1u);
  EXPECT_EQ(second.count("d"), 0u);
  PairKey other_bw = running_bw.peer == "a" ? PairKey{"bw", "b"} : PairKey{"bw", "a"};
  s.Finished(other_bw, t + seconds(2), "rxe0", 0);
  EXPECT_EQ(Peers(s.Due(t + seconds(2))), std::set<std::string>{"d"});
}

TEST(SchedulerCoreTest, MaxBandwidthPerDeviceAboveOne) {
  SchedulerLimits l = NoJitter();
  l.max_bandwidth_per_device = 2;
  SchedulerCore s(l);
  s.SetJobs({Job("bw", "a", true), Job("bw", "b", true), Job("bw", "c", true)}, kT0);
  EXPECT_EQ(s.Due(kT0 + seconds(10)).size(), 2u);
}

TEST(SchedulerCoreTest, UnknownDeviceConflictsUntilLearned) {
  SchedulerCore s(NoJitter());
  s.SetJobs({Job("bw", "a", true, ""), Job("bw", "b", true, "rxe1")}, kT0);
  Clock::time_point t = kT0 + seconds(10);
  EXPECT_EQ(s.Due(t).size(), 1u);  // "a" could be on rxe1
  EXPECT_EQ(s.Deferred(DeferReason::kConcurrency), 1u);
  auto first = s.IsRunning({"bw", "a"}) ? PairKey{"bw", "a"} : PairKey{"bw", "b"};
  s.Finished(first, t + milliseconds(10), first.peer == "a" ? "rxe0" : "rxe1", 0);
  s.Due(t + milliseconds(10));
  s.Finished({"bw", first.peer == "a" ? "b" : "a"}, t + milliseconds(20), first.peer == "a" ? "rxe1" : "rxe0", 0);
  // Both learned now (a -> rxe0, b -> rxe1): the next slots run together.
  EXPECT_EQ(s.Due(t + seconds(20)).size(), 2u);
}

TEST(SchedulerCoreTest, ByteBudgetDefersAndRefills) {
  SchedulerLimits l = NoJitter();
  l.byte_budget_per_second = 1000;
  SchedulerCore s(l);
  s.SetJobs({Job("lat", "a", false, "rxe0", seconds(10), 600), Job("lat", "b", false, "rxe1", seconds(10), 600)},
            kT0);
  Clock::time_point t = kT0 + seconds(10);
  s.Due(kT0);  // initialises the bucket (full: 1000)
  EXPECT_EQ(s.Due(t).size(), 1u);  // 1000 - 600 = 400 left
  EXPECT_EQ(s.Deferred(DeferReason::kBudget), 1u);
  EXPECT_TRUE(s.Due(t + milliseconds(100)).empty());  // 500 < 600
  EXPECT_EQ(s.Deferred(DeferReason::kBudget), 1u);
  EXPECT_EQ(s.Due(t + milliseconds(250)).size(), 1u);  // 650 >= 600
}

TEST(SchedulerCoreTest, ByteBudgetChargesActualBytes) {
  SchedulerLimits l = NoJitter();
  l.byte_budget_per_second = 1000;
  SchedulerCore s(l);
  JobSpec a = Job("bw", "a", true, "rxe0", seconds(5), 500);
  s.SetJobs({a}, kT0);
  Clock::time_point f = s.NextDue(a.key);
  ASSERT_EQ(s.Due(f).size(), 1u);  // bucket 1000 -> 500
  // It moved 5000 bytes, not 500: balance 500 + 500 - 5000 = -4000, and the
  // learned estimate (5000) becomes the bucket capacity.
  s.Finished(a.key, f, "rxe0", 5000);
  EXPECT_TRUE(s.Due(f + seconds(5)).empty());  // -4000 + 5000 = 1000 < 5000
  EXPECT_EQ(s.Deferred(DeferReason::kBudget), 1u);
  EXPECT_TRUE(s.Due(f + seconds(8)).empty());  // 4000 < 5000, same slot: not counted again
  EXPECT_EQ(s.Deferred(DeferReason::kBudget), 1u);
  EXPECT_EQ(s.Due(f + seconds(9)).size(), 1u);  // 5000
}

TEST(SchedulerCoreTest, SetJobsKeepsSlotsAndDropsRemovedPairs) {
  SchedulerCore s(NoJitter());
  JobSpec a = Job("bw", "a", true, "rxe0", seconds(30));
  JobSpec b = Job("bw", "b", true, "rxe1", seconds(30));
  s.SetJobs({a, b}, kT0);
  auto due_a = s.NextDue(a.key);
  s.SetJobs({a}, kT0 + seconds(5));
  EXPECT_EQ(s.NextDue(a.key), due_a);
  EXPECT_EQ(s.NextDue(b.key), Clock::time_point{});
  ASSERT_EQ(s.Due(kT0 + seconds(30)).size(), 1u);
  s.SetJobs({}, kT0 + seconds(31));  // removed while running
  s.Finished(a.key, kT0 + seconds(32), "rxe0", 0);
  EXPECT_EQ(s.RunningCount(), 0u);
  a.interval = seconds(60);  // changed interval: a new slot
  s.SetJobs({a}, kT0 + seconds(40));
  EXPECT_EQ(s.NextDue(a.key), kT0 + seconds(40) + Splay(a.key, a.interval));
}

TEST(SchedulerCoreTest, ExpectedBytesEstimates) {
  SessionParams bw;
  bw.type = config::ProbeType::kWriteBw;
  bw.duration = milliseconds(2000);
  EXPECT_EQ(ExpectedBytes(bw), 250'000'000u);
  SessionParams lat;
  lat.type = config::ProbeType::kSendLat;
  lat.size = 2;
  lat.iterations = 1000;
  EXPECT_EQ(ExpectedBytes(lat), 4000u);
}

}  // namespace
}  // namespace rxe::probes
