// Helpers of tests/tools/probe_once.cc (a header so the tools glob, one
// executable per .cc, does not turn them into a program of their own).
#pragma once

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>

#include "config/model.h"
#include "probes/engine.h"
#include "probes/stats.h"

namespace probe_once {

using rxe::probes::BandwidthMeasurement;
using rxe::probes::BandwidthStats;
using rxe::probes::ComputeBandwidth;
using rxe::probes::ComputeLatency;
using rxe::probes::EndpointInfo;
using rxe::probes::FailureReason;
using rxe::probes::LatencyMeasurement;
using rxe::probes::LatencyStats;
using rxe::probes::QpEndpoint;
using rxe::probes::SessionParams;

inline const char* ReasonName(FailureReason r) {
  return rxe::probes::FailureReasonName(r).data();  // literals: NUL-terminated
}

inline std::string RdmaResources(const std::string& dev) {
  std::string out;
  std::string cmd = "rdma resource show " + (dev.empty() ? std::string("") : dev) + " 2>&1";
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof(buf), p) != nullptr) out += buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

inline void PinThread(bool pin, int cpu) {
  if (!pin || std::thread::hardware_concurrency() < 2) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

// Pipe I/O for --fork: EndpointInfo as raw fields (same host, same ABI).
inline bool Put(int fd, const void* p, size_t n) {
  return write(fd, p, n) == static_cast<ssize_t>(n);
}
inline bool Get(int fd, void* p, size_t n) { return read(fd, p, n) == static_cast<ssize_t>(n); }
inline bool PutInfo(int fd, const EndpointInfo& e) {
  const uint32_t n = static_cast<uint32_t>(e.qps.size());
  return Put(fd, e.gid.data(), 16) && Put(fd, &e.addr, 8) && Put(fd, &e.rkey, 4) &&
         Put(fd, &e.buffer_bytes, 4) && Put(fd, &e.active_mtu, 4) && Put(fd, &n, 4) &&
         Put(fd, e.qps.data(), n * sizeof(QpEndpoint));
}
inline bool GetInfo(int fd, EndpointInfo* e) {
  uint32_t n = 0;
  if (!(Get(fd, e->gid.data(), 16) && Get(fd, &e->addr, 8) && Get(fd, &e->rkey, 4) &&
        Get(fd, &e->buffer_bytes, 4) && Get(fd, &e->active_mtu, 4) && Get(fd, &n, 4) &&
        n <= 1024)) {
    return false;
  }
  e->qps.resize(n);
  return Get(fd, e->qps.data(), n * sizeof(QpEndpoint));
}

// perftest-like report plus the RESULT line.
inline void PrintBandwidth(const SessionParams& p, const BandwidthMeasurement& m) {
  const double secs = std::chrono::duration<double>(m.elapsed).count();
  BandwidthStats b = ComputeBandwidth(m.bytes, m.messages, m.elapsed);
  std::printf("---------------------------------------------------------------------------\n");
  std::printf(
      " #bytes     #iterations    BW average[MiB/sec]    BW average[Gb/sec]    MsgRate[Mpps]\n");
  std::printf(" %-10u %-14llu %-22.2f %-21.3f %.6f\n", p.size,
              static_cast<unsigned long long>(m.messages), b.bytes_per_second / (1 << 20),
              b.bits_per_second / 1e9, b.messages_per_second / 1e6);
  std::printf("---------------------------------------------------------------------------\n");
  std::printf(
      "RESULT type=%s ok=1 size=%u bytes=%llu messages=%llu elapsed_s=%.6f bw_mib_s=%.3f "
      "bw_gbit_s=%.4f msg_rate_mpps=%.6f\n",
      rxe::config::ProbeTypeName(p.type), p.size, static_cast<unsigned long long>(m.bytes),
      static_cast<unsigned long long>(m.messages), secs, b.bytes_per_second / (1 << 20),
      b.bits_per_second / 1e9, b.messages_per_second / 1e6);
}

inline void PrintLatency(const SessionParams& p, const LatencyMeasurement& m) {
  LatencyStats s = ComputeLatency(m.rtt_seconds);
  const double us = 1e6;
  std::printf("---------------------------------------------------------------------------\n");
  std::printf(
      " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
      "    t_stdev[usec]   99%% percentile[usec]   99.9%% percentile[usec]\n");
  std::printf(" %-6u %-14zu %-14.2f %-12.2f %-18.2f %-14.2f %-16.2f %-23.2f %.2f\n", p.size,
              s.samples, s.min * us, s.max * us, s.median * us, s.mean * us, s.stdev * us,
              s.p99 * us, s.p999 * us);
  std::printf("---------------------------------------------------------------------------\n");
  std::printf(
      "RESULT type=%s ok=1 size=%u samples=%zu t_min_us=%.3f t_max_us=%.3f t_typical_us=%.3f "
      "t_avg_us=%.3f t_stdev_us=%.3f p99_us=%.3f p999_us=%.3f\n",
      rxe::config::ProbeTypeName(p.type), p.size, s.samples, s.min * us, s.max * us, s.median * us,
      s.mean * us, s.stdev * us, s.p99 * us, s.p999 * us);
}

}  // namespace probe_once
