#include "sweep/sweep_runner.h"

#include <gtest/gtest.h>

#include <sstream>

#include "sweep/sweep_probe.h"

namespace rxe::sweep {
namespace {

Plan SizePlan(int repeat) {
  Base b;
  b.params = ArticleDefaults();
  b.repeat = repeat;
  return ExpandVary("size=64,4KiB,64KiB", b).value();
}

TEST(SweepRunner, RunsPointsTimesRepeatsWithProgress) {
  std::vector<std::pair<uint32_t, bool>> calls;  // (size, pinned)
  PointFn fn = [&](const probes::SessionParams& p, const PinSpec& pin) {
    calls.push_back({p.size, !pin.none()});
    return PointOutcome{p.size / 65536.0 + 0.5, "", false};
  };
  std::ostringstream progress;
  RunOptions o;
  o.progress = &progress;
  o.target = "b:19792";
  std::vector<std::string> done;
  o.on_sweep_done = [&](const SweepResult& r) { done.push_back(r.plan.name); };
  RunOutcome out = RunSweeps({SizePlan(2)}, fn, o);
  EXPECT_FALSE(out.interrupted);
  ASSERT_EQ(out.sweeps.size(), 1u);
  EXPECT_TRUE(out.sweeps[0].complete);
  EXPECT_EQ(out.sweeps[0].target, "b:19792");
  ASSERT_EQ(out.sweeps[0].points.size(), 3u);
  EXPECT_EQ(out.sweeps[0].points[2].samples, (std::vector<double>{1.5, 1.5}));
  EXPECT_EQ(calls.size(), 6u);
  EXPECT_EQ(done, std::vector<std::string>{"size"});
  EXPECT_NE(progress.str().find("[1/6] size: size=64B repeat 1/2 ... 0.501 Gb/s\n"),
            std::string::npos)
      << progress.str();
  EXPECT_NE(progress.str().find("[6/6] size: size=64KiB repeat 2/2 ... 1.500 Gb/s\n"),
            std::string::npos);
}

TEST(SweepRunner, FailuresAreRecordedAndTheRunGoesOn) {
  int n = 0;
  PointFn fn = [&](const probes::SessionParams& p, const PinSpec&) {
    ++n;
    if (p.size == 4096 && n % 2 == 1) return PointOutcome{std::nullopt, "timeout: slow", false};
    return PointOutcome{1.0, "", false};
  };
  std::ostringstream progress;
  RunOptions o;
  o.progress = &progress;
  RunOutcome out = RunSweeps({SizePlan(2)}, fn, o);
  ASSERT_EQ(out.sweeps[0].points.size(), 3u);
  EXPECT_EQ(out.sweeps[0].points[1].samples.size(), 1u);
  EXPECT_EQ(out.sweeps[0].points[1].errors, std::vector<std::string>{"timeout: slow"});
  EXPECT_NE(progress.str().find("failed: timeout: slow"), std::string::npos);
}

TEST(SweepRunner, CancelMidwayKeepsFinishedPoints) {
  std::atomic<bool> cancel{false};
  int calls = 0;
  // Ctrl-C arrives during the 4th probe: the 3 repeats of 64B are done, the
  // first repeat of 4KiB is interrupted.
  PointFn fn = [&](const probes::SessionParams&, const PinSpec&) {
    if (++calls == 4) {
      cancel = true;
      return PointOutcome{std::nullopt, "", true};  // the probe saw the flag and stopped
    }
    return PointOutcome{2.0, "", false};
  };
  RunOptions o;
  o.cancel = &cancel;
  std::vector<SweepResult> reported;
  o.on_sweep_done = [&](const SweepResult& r) { reported.push_back(r); };
  RunOutcome out = RunSweeps({SizePlan(3), SizePlan(3)}, fn, o);
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(calls, 4);
  ASSERT_EQ(out.sweeps.size(), 1u);  // the second sweep never started
  EXPECT_FALSE(out.sweeps[0].complete);
  ASSERT_EQ(out.sweeps[0].points.size(), 1u);  // 64B finished, 4KiB dropped
  EXPECT_EQ(out.sweeps[0].points[0].samples.size(), 3u);
  ASSERT_EQ(reported.size(), 1u);  // outputs are still written for the interrupted sweep
  EXPECT_EQ(reported[0].points.size(), 1u);
  const Summary s = Summarize(out.sweeps[0]);
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(s.planned_points, 3u);
}

TEST(SweepRunner, CancelBetweenProbesStopsBeforeTheNextOne) {
  std::atomic<bool> cancel{false};
  int calls = 0;
  PointFn fn = [&](const probes::SessionParams&, const PinSpec&) {
    if (++calls == 2) cancel = true;  // set after the probe finished normally
    return PointOutcome{1.0, "", false};
  };
  RunOptions o;
  o.cancel = &cancel;
  RunOutcome out = RunSweeps({SizePlan(2)}, fn, o);
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(calls, 2);
  ASSERT_EQ(out.sweeps[0].points.size(), 1u);  // 64B had both repeats
}

TEST(SweepRunner, PinPassedToThePointFunction) {
  Base b;
  b.params = ArticleDefaults();
  b.repeat = 1;
  std::vector<std::string> pins;
  PointFn fn = [&](const probes::SessionParams&, const PinSpec& pin) {
    pins.push_back(pin.Label());
    return PointOutcome{1.0, "", false};
  };
  RunSweeps({ExpandVary("cpu=none,0,0-1", b).value()}, fn, RunOptions{});
  EXPECT_EQ(pins, (std::vector<std::string>{"none", "0", "0-1"}));
}

TEST(SweepProbe, ModuleForCopiesTheParameters) {
  probes::SessionParams p = ArticleDefaults();
  p.size = 4096;
  p.mtu = 0;
  p.qps = 4;
  p.post_list = 8;
  p.cq_moderation = 8;
  ProbeTarget t;
  t.device = "rxe0";
  t.gid_index = 1;
  const config::Module m = ModuleFor(p, t);
  EXPECT_EQ(m.size, 4096u);
  EXPECT_FALSE(m.mtu.has_value());
  EXPECT_EQ(m.qps, 4u);
  EXPECT_EQ(m.post_list, 8u);
  EXPECT_EQ(m.cq_moderation, 8u);
  EXPECT_EQ(m.device, "rxe0");
  EXPECT_EQ(m.gid_index, 1);
  EXPECT_EQ(m.timeout, std::chrono::milliseconds(16000));  // 1 s + 15 s slack
  EXPECT_EQ(probes::ParamsFor(m).mtu, 0u);
  EXPECT_EQ(probes::ParamsFor(m).size, 4096u);
}

TEST(SweepProbe, OutcomeValues) {
  probes::ProbeOutcome bw;
  bw.success = true;
  bw.measurement = probes::BandwidthMeasurement{250000000, 3815, std::chrono::seconds(1)};
  EXPECT_DOUBLE_EQ(*ToPointOutcome(bw).value, 2.0);  // 2e9 bit/s
  probes::ProbeOutcome lat;
  lat.success = true;
  lat.measurement = probes::LatencyMeasurement{{40e-6, 40e-6, 40e-6, 50e-6, 60e-6}};
  EXPECT_NEAR(*ToPointOutcome(lat).value, 20.0, 1e-9);  // one-way = RTT/2, median
  probes::ProbeOutcome failed;
  failed.failure =
      probes::ProbeFailure{probes::FailureReason::kWcError, "send", "IBV_WC_RETRY_EXC_ERR"};
  const PointOutcome f = ToPointOutcome(failed);
  EXPECT_FALSE(f.value);
  EXPECT_EQ(f.error, "wc_error: send (IBV_WC_RETRY_EXC_ERR)");
}

TEST(SweepProbe, ScopedPinRestoresAffinity) {
  cpu_set_t before;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof before, &before), 0);
  int first = -1;
  for (int c = 0; c < CPU_SETSIZE && first < 0; ++c) {
    if (CPU_ISSET(c, &before)) first = c;
  }
  ASSERT_GE(first, 0);
  {
    ScopedPin pin(PinSpec{{first}});
    ASSERT_TRUE(pin.ok()) << pin.error();
    cpu_set_t now;
    pthread_getaffinity_np(pthread_self(), sizeof now, &now);
    EXPECT_EQ(CPU_COUNT(&now), 1);
  }
  cpu_set_t after;
  pthread_getaffinity_np(pthread_self(), sizeof after, &after);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  ScopedPin bad(PinSpec{{4000}});  // not a CPU of this machine
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace rxe::sweep
