// Hand-computed checks of the perftest-compatible latency/bandwidth statistics.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "probes/stats.h"

namespace rxe::probes {
namespace {

constexpr double kUs = 1e-6;

std::vector<double> Us(std::vector<double> v) {
  for (double& x : v) x *= kUs;
  return v;
}

TEST(ComputeLatencyTest, OddKeptCountHalvesRttAndDropsTwoLargest) {
  // RTTs 2..10 us plus two outliers; one-way = {1,2,3,4,5 | 50,100}, m = 5.
  LatencyStats s = ComputeLatency(Us({200, 6, 2, 100, 10, 4, 8}));
  EXPECT_EQ(s.samples, 7u);
  EXPECT_EQ(s.kept, 5u);
  EXPECT_DOUBLE_EQ(s.min, 1 * kUs);
  EXPECT_DOUBLE_EQ(s.max, 50 * kUs);  // d[m]: perftest's t_max is the 2nd largest overall
  EXPECT_DOUBLE_EQ(s.median, 3 * kUs);
  EXPECT_DOUBLE_EQ(s.mean, 3 * kUs);
  // deviations -2,-1,0,1,2 -> variance 10/5 = 2 (population)
  EXPECT_NEAR(s.stdev, std::sqrt(2.0) * kUs, 1e-15);
  EXPECT_DOUBLE_EQ(s.p99, 50 * kUs);   // d[ceil(4.95)] = d[5]
  EXPECT_DOUBLE_EQ(s.p999, 50 * kUs);  // d[ceil(4.995)] = d[5]
}

TEST(ComputeLatencyTest, EvenKeptCountMedianIsMeanOfMiddleTwo) {
  // rtt_factor 1 (read/atomic style): d = {1,2,3,4 | 10,20}, m = 4.
  LatencyStats s = ComputeLatency(Us({20, 3, 1, 10, 4, 2}), 1);
  EXPECT_EQ(s.kept, 4u);
  EXPECT_DOUBLE_EQ(s.median, 2.5 * kUs);
  EXPECT_DOUBLE_EQ(s.mean, 2.5 * kUs);
  // deviations -1.5,-0.5,0.5,1.5 -> variance (2.25+0.25+0.25+2.25)/4 = 1.25
  EXPECT_NEAR(s.stdev, std::sqrt(1.25) * kUs, 1e-15);
  EXPECT_DOUBLE_EQ(s.max, 10 * kUs);
  EXPECT_DOUBLE_EQ(s.p99, 10 * kUs);  // d[ceil(3.96)] = d[4]
}

TEST(ComputeLatencyTest, PercentileIndicesOnLargeSample) {
  // d = 1..1002 (factor 1), m = 1000.
  std::vector<double> v;
  for (int i = 1002; i >= 1; --i) v.push_back(i);
  LatencyStats s = ComputeLatency(v, 1);
  EXPECT_EQ(s.kept, 1000u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 1001);      // d[1000]
  EXPECT_DOUBLE_EQ(s.median, 500.5);  // (d[499] + d[500]) / 2
  EXPECT_DOUBLE_EQ(s.mean, 500.5);
  EXPECT_DOUBLE_EQ(s.p99, 991);    // d[ceil(990)] = d[990]
  EXPECT_DOUBLE_EQ(s.p999, 1000);  // d[ceil(999)] = d[999]
  // population stdev of 1..1000 = sqrt((1000^2 - 1) / 12)
  EXPECT_NEAR(s.stdev, std::sqrt((1000.0 * 1000.0 - 1) / 12), 1e-9);
}

TEST(ComputeLatencyTest, P999ReachesMaxWhenSampleIsSmall) {
  std::vector<double> v;
  for (int i = 1; i <= 202; ++i) v.push_back(i);  // m = 200
  LatencyStats s = ComputeLatency(v, 1);
  EXPECT_DOUBLE_EQ(s.p99, 199);   // d[198]
  EXPECT_DOUBLE_EQ(s.p999, 201);  // d[ceil(199.8)] = d[200] = max
  EXPECT_DOUBLE_EQ(s.max, 201);
}

TEST(ComputeLatencyTest, EmptyInputIsAllZero) {
  LatencyStats s = ComputeLatency({});
  EXPECT_EQ(s.samples, 0u);
  EXPECT_EQ(s.kept, 0u);
  EXPECT_EQ(s.median, 0);
  EXPECT_EQ(s.stdev, 0);
}

TEST(ComputeLatencyTest, OneSample) {
  LatencyStats s = ComputeLatency(Us({4}));
  EXPECT_EQ(s.kept, 1u);
  for (double v : {s.min, s.max, s.median, s.mean, s.p99, s.p999}) EXPECT_DOUBLE_EQ(v, 2 * kUs);
  EXPECT_EQ(s.stdev, 0);
}

TEST(ComputeLatencyTest, TwoSamplesDropNothing) {
  LatencyStats s = ComputeLatency(Us({6, 2}));  // one-way {1, 3}
  EXPECT_EQ(s.kept, 2u);
  EXPECT_DOUBLE_EQ(s.min, 1 * kUs);
  EXPECT_DOUBLE_EQ(s.max, 3 * kUs);
  EXPECT_DOUBLE_EQ(s.median, 2 * kUs);
  EXPECT_DOUBLE_EQ(s.mean, 2 * kUs);
  EXPECT_NEAR(s.stdev, 1 * kUs, 1e-15);
  EXPECT_DOUBLE_EQ(s.p99, 3 * kUs);  // index ceil(1.98) = 2 clamped to 1
}

TEST(ComputeLatencyTest, ThreeSamplesKeepOne) {
  LatencyStats s = ComputeLatency({3, 1, 2}, 1);
  EXPECT_EQ(s.kept, 1u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.median, 1);
  EXPECT_DOUBLE_EQ(s.mean, 1);
  EXPECT_DOUBLE_EQ(s.max, 2);  // d[m] = d[1]
  EXPECT_DOUBLE_EQ(s.p99, 2);  // d[ceil(0.99)] = d[1]
  EXPECT_EQ(s.stdev, 0);
}

// perftest's stdev: `int temp_var = average - x` (microseconds) truncates each
// deviation before squaring. Reimplemented here only to show the difference.
double PerftestTruncatedStdevUs(const std::vector<double>& kept_us) {
  double sum = 0;
  for (double x : kept_us) sum += x;
  const double avg = sum / static_cast<double>(kept_us.size());
  double sq = 0;
  for (double x : kept_us) {
    int temp_var = static_cast<int>(avg - x);
    int pow_var = static_cast<int>(std::pow(temp_var, 2));
    sq += pow_var;
  }
  return std::sqrt(sq / static_cast<double>(kept_us.size()));
}

TEST(ComputeLatencyTest, StdevIsNotTruncatedLikePerftest) {
  // One-way kept samples 10.0, 10.4, 10.8, 11.2, 11.6 us (+ 2 dropped outliers):
  // mean 10.8, deviations +-0.8, +-0.4, 0 -> variance 1.6/5 = 0.32, stdev 0.5657 us.
  // perftest truncates every |deviation| < 1 us to 0 and prints t_stdev 0.00.
  const std::vector<double> kept_us = {10.0, 10.4, 10.8, 11.2, 11.6};
  std::vector<double> rtt;
  for (double x : kept_us) rtt.push_back(2 * x * kUs);
  rtt.push_back(2 * 90 * kUs);
  rtt.push_back(2 * 95 * kUs);
  LatencyStats s = ComputeLatency(rtt);
  EXPECT_NEAR(s.stdev / kUs, std::sqrt(0.32), 1e-9);
  EXPECT_NEAR(s.stdev / kUs, 0.565685, 1e-6);
  EXPECT_DOUBLE_EQ(PerftestTruncatedStdevUs(kept_us), 0.0);
  EXPECT_NEAR(s.median / kUs, 10.8, 1e-9);
}

TEST(ComputeBandwidthTest, RatesFromBytesMessagesAndElapsed) {
  BandwidthStats b = ComputeBandwidth(20 * 65536, 20, std::chrono::milliseconds(500));
  EXPECT_DOUBLE_EQ(b.bytes_per_second, 2621440);
  EXPECT_DOUBLE_EQ(b.bits_per_second, 20971520);
  EXPECT_DOUBLE_EQ(b.messages_per_second, 40);
  // perftest's MB/sec is MiB/s: 2621440 / 2^20 = 2.5
  EXPECT_DOUBLE_EQ(b.bytes_per_second / (1 << 20), 2.5);
}

TEST(ComputeBandwidthTest, ZeroElapsedGivesZeroRates) {
  BandwidthStats b = ComputeBandwidth(1000, 1, std::chrono::seconds(0));
  EXPECT_EQ(b.bytes_per_second, 0);
  EXPECT_EQ(b.bits_per_second, 0);
  EXPECT_EQ(b.messages_per_second, 0);
}

}  // namespace
}  // namespace rxe::probes
