#include "probes/stats.h"

#include <algorithm>
#include <cmath>

namespace rxe::probes {
namespace {

// perftest: delta[ceil(q * m)], clamped to the last sample.
double Percentile(const std::vector<double>& d, size_t m, double q) {
  auto idx = static_cast<size_t>(std::ceil(q * static_cast<double>(m)));
  return d[std::min(idx, d.size() - 1)];
}

}  // namespace

LatencyStats ComputeLatency(std::vector<double> rtt_seconds, double rtt_factor) {
  LatencyStats s;
  const size_t n = rtt_seconds.size();
  s.samples = n;
  if (n == 0) return s;
  if (rtt_factor <= 0) rtt_factor = 1;
  for (double& v : rtt_seconds) v /= rtt_factor;
  std::sort(rtt_seconds.begin(), rtt_seconds.end());
  const std::vector<double>& d = rtt_seconds;

  const size_t m = n > kLatencyMeasureTail ? n - kLatencyMeasureTail : n;
  s.kept = m;
  s.min = d[0];
  s.max = d[std::min(m, n - 1)];
  s.median = (m % 2 == 1) ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;

  double sum = 0;
  for (size_t i = 0; i < m; ++i) sum += d[i];
  s.mean = sum / static_cast<double>(m);
  double sq = 0;
  for (size_t i = 0; i < m; ++i) sq += (d[i] - s.mean) * (d[i] - s.mean);
  s.stdev = std::sqrt(sq / static_cast<double>(m));

  s.p99 = Percentile(d, m, 0.99);
  s.p999 = Percentile(d, m, 0.999);
  return s;
}

BandwidthStats ComputeBandwidth(uint64_t bytes, uint64_t messages,
                                std::chrono::duration<double> elapsed) {
  BandwidthStats b;
  const double secs = elapsed.count();
  if (!(secs > 0)) return b;
  b.bytes_per_second = static_cast<double>(bytes) / secs;
  b.bits_per_second = b.bytes_per_second * 8;
  b.messages_per_second = static_cast<double>(messages) / secs;
  return b;
}

}  // namespace rxe::probes
