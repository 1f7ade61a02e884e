// Pure parsers for the host-cost collector: /proc/stat per-CPU times and
// /proc/softirqs per-CPU counts. Soft-RoCE runs its transport in softirq
// context, so on rxe hosts the CPU (often one hot core) is the bottleneck.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rxe::collectors {

struct CpuTimes {
  int cpu = 0;
  uint64_t total_ticks = 0;    // sum of all states (user .. steal)
  uint64_t softirq_ticks = 0;  // the 7th field of a "cpuN" line
};

/// Parses the "cpuN ..." lines of /proc/stat (the aggregate "cpu" line is skipped).
std::optional<std::vector<CpuTimes>> ParseProcStat(std::string_view text);

/// Parses /proc/softirqs into name -> per-CPU counts (index = column = CPU number).
std::optional<std::map<std::string, std::vector<uint64_t>>> ParseSoftirqs(std::string_view text);

/// The busiest CPU's softirq share between two samples: max over CPUs of
/// d(softirq)/d(total). nullopt if no CPU advanced.
struct BusiestCpu {
  int cpu = 0;
  double ratio = 0;
};
std::optional<BusiestCpu> BusiestSoftirqCpu(const std::vector<CpuTimes>& before,
                                            const std::vector<CpuTimes>& after);

}  // namespace rxe::collectors
