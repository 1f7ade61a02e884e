// StreamWindow: the measurement window of a bandwidth stream (verbs_stream.h).
#include <gtest/gtest.h>

#include <chrono>

#include "probes/verbs_stream.h"

namespace rxe::probes {
namespace {

using namespace std::chrono_literals;

Clock::duration D(std::chrono::duration<double> d) { return std::chrono::duration_cast<Clock::duration>(d); }

TEST(StreamWindowTest, CountsCompletionsPolledAfterWarmUp) {
  const Clock::time_point t0{};
  StreamWindow w(t0 + 100ms);
  w.MaybeOpen(t0 + 50ms, 3);
  EXPECT_FALSE(w.open());
  w.MaybeOpen(t0 + 101ms, 10);  // the 10 polled before this check are warm-up
  ASSERT_TRUE(w.open());
  w.MaybeOpen(t0 + 500ms, 50);  // no effect once open
  BandwidthMeasurement m = w.Result(t0, t0 + 1100ms, 100, 65536);
  EXPECT_EQ(m.messages, 90u);
  EXPECT_EQ(m.bytes, 90u * 65536);
  EXPECT_EQ(m.elapsed, D(1s));
}

// rdma_rxe runs the requester inside ibv_post_send: over loopback on a slow CPU,
// posting 8 x 1 MiB took longer than the whole 1 s duration, and the first poll
// returned all 8 completions. The window used to open after that poll, so the probe
// "succeeded" with 0 bytes; the check before the poll counts them.
TEST(StreamWindowTest, PostsThatRunPastTheDurationAreCounted) {
  const Clock::time_point t0{};
  StreamWindow w(t0 + 100ms);
  w.MaybeOpen(t0 + 1050ms, 0);  // before the first poll, after the posts
  ASSERT_TRUE(w.open());
  BandwidthMeasurement m = w.Result(t0, t0 + 1190ms, 8, 1 << 20);
  EXPECT_EQ(m.messages, 8u);
  EXPECT_EQ(m.bytes, 8u << 20);
  EXPECT_EQ(m.elapsed, D(1090ms));
}

TEST(StreamWindowTest, NeverOpenedMeansTheWholeRun) {
  const Clock::time_point t0{};
  StreamWindow w(t0 + 100ms);
  BandwidthMeasurement m = w.Result(t0, t0 + 50ms, 4, 1000);
  EXPECT_EQ(m.messages, 4u);
  EXPECT_EQ(m.elapsed, D(50ms));
}

TEST(StreamStallDetailTest, NamesAStallWithItsLengthAndCounts) {
  EXPECT_EQ(StreamStallDetail(D(61.25s), 10883, 11011),
            "deadline exceeded in the data phase: no completion for 61.2 s, 10883 of 11011 WRs "
            "completed (the RC stream stalled)");
  // No completion at all: the caller passes the time since the start.
  EXPECT_EQ(StreamStallDetail(D(30s), 0, 128),
            "deadline exceeded in the data phase: no completion for 30.0 s, 0 of 128 WRs "
            "completed (the RC stream stalled)");
}

TEST(StreamStallDetailTest, AStreamStillCompletingIsSlowNotStalled) {
  EXPECT_EQ(StreamStallDetail(D(1.3s), 500, 628),
            "deadline exceeded in the data phase, still completing: 500 of 628 WRs completed "
            "(the duration and the drain took longer than the timeout)");
  EXPECT_NE(StreamStallDetail(kStallAfter, 1, 2).find("stalled"), std::string::npos);
}

}  // namespace
}  // namespace rxe::probes
