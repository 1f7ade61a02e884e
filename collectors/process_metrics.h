// The standard Prometheus process metrics of the exporter itself, with the
// names, help texts, types and units of client_golang's process collector:
// process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_virtual_memory_max_bytes,
// process_open_fds, process_max_fds, process_start_time_seconds.
// Read from <procfs>/self like client_golang (the daemon passes "/proc").
#pragma once

#include <prometheus/metric_family.h>

#include <optional>
#include <string>
#include <vector>

namespace rxe::collectors {

/// One reading; a value that could not be read is nullopt and not exported.
struct ProcessSample {
  std::optional<double> cpu_seconds;
  std::optional<double> resident_memory_bytes;
  std::optional<double> virtual_memory_bytes;
  std::optional<double> virtual_memory_max_bytes;
  std::optional<double> open_fds;
  std::optional<double> max_fds;
  std::optional<double> start_time_seconds;
};

/// Reads <procfs_root>/self/stat, self/limits, self/fd/ and <procfs_root>/stat.
/// `ticks_per_second` and `page_size` are sysconf(_SC_CLK_TCK) and
/// sysconf(_SC_PAGESIZE) (0 = ask sysconf).
ProcessSample ReadProcessSample(const std::string& procfs_root, long ticks_per_second = 0,
                                long page_size = 0);

/// Appends one family per value present, in client_golang's order.
void AppendProcessMetrics(const ProcessSample& s, std::vector<prometheus::MetricFamily>& out);

}  // namespace rxe::collectors
