// SchedulerRunner with a probe function that throws std::bad_alloc: before, an exception
// outside the worker's try (or in the dispatcher loop) reached std::terminate. Now every one
// is caught, logged and counted in InternalErrors(), and the pair runs again on schedule.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <new>

#include "probes/scheduler_runner.h"

namespace rxe::probes {
namespace {

using namespace std::chrono_literals;

TEST(SchedulerRunnerTest, BadAllocFromAProbeIsCountedAndTheScheduleGoesOn) {
  std::mutex mu;
  std::condition_variable cv;
  int calls = 0, sunk = 0;
  SchedulerRunner runner(
      [&](const config::Module& m, const config::Peer& p, const std::atomic<bool>&) {
        std::lock_guard<std::mutex> lock(mu);
        ++calls;
        cv.notify_all();
        if (calls == 1) throw std::bad_alloc();
        ProbeOutcome out;
        out.module = m.name;
        out.peer = p.name;
        out.success = true;
        return out;
      },
      [&](const ProbeOutcome&) {
        std::lock_guard<std::mutex> lock(mu);
        ++sunk;
        cv.notify_all();
      },
      SchedulerLimits{});
  ScheduledPair pair;
  pair.module.name = "lat";
  pair.module.type = config::ProbeType::kSendLat;
  pair.module.interval = 100ms;
  pair.module.timeout = 50ms;
  pair.peer = config::Peer{"a", "127.0.0.1"};
  runner.Update({pair}, SchedulerLimits{});
  ASSERT_TRUE(runner.Start().ok());
  {
    std::unique_lock<std::mutex> lock(mu);
    // Generous bound: only reached if the runner died with the first call.
    ASSERT_TRUE(cv.wait_for(lock, 30s, [&] { return sunk >= 2; })) << "calls " << calls;
  }
  runner.Stop();
  EXPECT_EQ(runner.InternalErrors(), 1u);
}

}  // namespace
}  // namespace rxe::probes
