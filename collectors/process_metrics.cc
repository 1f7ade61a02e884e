#include "collectors/process_metrics.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "collectors/metric_builder.h"
#include "collectors/process_parse.h"

namespace rxe::collectors {
namespace {

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::optional<double> CountEntries(const std::string& dir) {
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec), end;
  if (ec) return std::nullopt;
  double n = 0;
  for (; it != end; it.increment(ec)) {
    if (ec) return std::nullopt;
    ++n;
  }
  return n;
}

void Add(const char* name, const char* help, prometheus::MetricType type,
         const std::optional<double>& v, std::vector<prometheus::MetricFamily>& out) {
  if (!v) return;
  FamilyBuilder(name, help, type).Add({}, *v).AppendTo(out);
}

}  // namespace

ProcessSample ReadProcessSample(const std::string& procfs_root, long ticks_per_second,
                                long page_size) {
  if (ticks_per_second <= 0) ticks_per_second = sysconf(_SC_CLK_TCK);
  if (page_size <= 0) page_size = sysconf(_SC_PAGESIZE);
  const std::string self = procfs_root + "/self";
  ProcessSample s;
  std::optional<ProcSelfStat> stat;
  if (auto text = ReadSmallFile(self + "/stat")) stat = ParseProcSelfStat(*text);
  if (stat && ticks_per_second > 0) {
    const double hz = static_cast<double>(ticks_per_second);
    s.cpu_seconds = static_cast<double>(stat->utime_ticks + stat->stime_ticks) / hz;
    s.virtual_memory_bytes = static_cast<double>(stat->vsize_bytes);
    s.resident_memory_bytes =
        static_cast<double>(stat->rss_pages) * static_cast<double>(page_size);
    if (auto text = ReadSmallFile(procfs_root + "/stat")) {
      if (auto btime = ParseBootTime(*text)) {
        s.start_time_seconds =
            static_cast<double>(*btime) + static_cast<double>(stat->starttime_ticks) / hz;
      }
    }
  }
  if (auto limits = ReadSmallFile(self + "/limits")) {
    if (auto v = ParseSoftLimit(*limits, "Max open files")) s.max_fds = static_cast<double>(*v);
    if (auto v = ParseSoftLimit(*limits, "Max address space")) {
      s.virtual_memory_max_bytes = static_cast<double>(*v);
    }
  }
  s.open_fds = CountEntries(self + "/fd");
  return s;
}

void AppendProcessMetrics(const ProcessSample& s, std::vector<prometheus::MetricFamily>& out) {
  using prometheus::MetricType;
  Add("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
      MetricType::Counter, s.cpu_seconds, out);
  Add("process_open_fds", "Number of open file descriptors.", MetricType::Gauge, s.open_fds, out);
  Add("process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge, s.max_fds,
      out);
  Add("process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::Gauge,
      s.virtual_memory_bytes, out);
  Add("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.",
      MetricType::Gauge, s.virtual_memory_max_bytes, out);
  Add("process_resident_memory_bytes", "Resident memory size in bytes.", MetricType::Gauge,
      s.resident_memory_bytes, out);
  Add("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
      MetricType::Gauge, s.start_time_seconds, out);
}

}  // namespace rxe::collectors
