// Probe statistics, perftest-compatible (pure; used by the prober to build
// metrics and by probe_once to print a perftest-like report).
//
// Latency (perftest print_report_lat, pt4.5):
//  - input: n round-trip samples (seconds); each is divided by rtt_factor
//    (2 for send/write: one-way = RTT/2);
//  - sort ascending, d[0..n-1]; drop the 2 largest (LAT_MEASURE_TAIL):
//    m = n - 2 samples d[0..m-1] are kept;
//  - min = d[0]; max = d[m] (perftest's t_max: the 2nd-largest sample overall);
//  - median = d[m/2] for odd m, (d[m/2-1] + d[m/2]) / 2 for even m (t_typical);
//  - mean over the m kept samples; stdev = population stdev (divide by m) over
//    the kept samples, in floating point (perftest truncates every deviation
//    to whole microseconds before squaring; we do not);
//  - p99 = d[ceil(0.99 m)], p99.9 = d[ceil(0.999 m)] (indices into the full
//    sorted array, so they can reach d[m] = max), clamped to n-1;
//  - n <= 2: nothing is dropped (m = n), max = d[n-1]; n = 0: all zero.
// Bandwidth: bytes / elapsed (elapsed = last completion - first post).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rxe::probes {

inline constexpr size_t kLatencyMeasureTail = 2;  // perftest LAT_MEASURE_TAIL

struct LatencyStats {
  size_t samples = 0;  // n, as given
  size_t kept = 0;     // m, after dropping the tail
  double min = 0;      // all in seconds, one-way (RTT / rtt_factor)
  double max = 0;
  double median = 0;
  double mean = 0;
  double stdev = 0;
  double p99 = 0;
  double p999 = 0;
};

LatencyStats ComputeLatency(std::vector<double> rtt_seconds, double rtt_factor = 2);

struct BandwidthStats {
  double bytes_per_second = 0;
  double bits_per_second = 0;
  double messages_per_second = 0;
};

/// Zero rates when elapsed <= 0.
BandwidthStats ComputeBandwidth(uint64_t bytes, uint64_t messages,
                                std::chrono::duration<double> elapsed);

}  // namespace rxe::probes
