// Pure parsers for the exporter's own process metrics (process_*, named and
// computed as Prometheus client_golang's process collector does): the
// /proc/self/stat fields, /proc/self/limits and the boot time from /proc/stat.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rxe::collectors {

/// The fields of /proc/<pid>/stat the process metrics use (proc(5) numbering).
struct ProcSelfStat {
  uint64_t utime_ticks = 0;      // (14) user time, clock ticks
  uint64_t stime_ticks = 0;      // (15) system time, clock ticks
  uint64_t starttime_ticks = 0;  // (22) start after boot, clock ticks
  uint64_t vsize_bytes = 0;      // (23) virtual memory size
  int64_t rss_pages = 0;         // (24) resident set, pages
};

/// Parses one /proc/<pid>/stat line; the command name (field 2) may contain
/// spaces and parentheses. nullopt if a field is missing or not a number.
std::optional<ProcSelfStat> ParseProcSelfStat(std::string_view text);

/// A soft limit from /proc/<pid>/limits, e.g. name "Max open files".
/// "unlimited" is UINT64_MAX (as client_golang reports it, 1.8446744073709552e+19).
std::optional<uint64_t> ParseSoftLimit(std::string_view limits_text, std::string_view name);

/// The "btime" line of /proc/stat: boot time, seconds since the epoch.
std::optional<uint64_t> ParseBootTime(std::string_view proc_stat_text);

}  // namespace rxe::collectors
