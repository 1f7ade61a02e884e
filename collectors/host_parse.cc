#include "collectors/host_parse.h"

#include <charconv>

namespace rxe::collectors {
namespace {

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

bool ToU64(std::string_view s, uint64_t& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

template <typename F>
void ForEachLine(std::string_view text, F f) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    f(text.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

std::optional<std::vector<CpuTimes>> ParseProcStat(std::string_view text) {
  std::vector<CpuTimes> out;
  bool ok = true;
  ForEachLine(text, [&](std::string_view line) {
    if (line.size() < 4 || line.substr(0, 3) != "cpu" || line[3] == ' ') return;
    auto f = Fields(line);
    // cpuN user nice system idle iowait irq softirq [steal guest guest_nice]
    if (f.size() < 8) { ok = false; return; }
    CpuTimes t;
    uint64_t cpu = 0;
    if (!ToU64(f[0].substr(3), cpu)) { ok = false; return; }
    t.cpu = static_cast<int>(cpu);
    // guest and guest_nice are already included in user and nice.
    const size_t last = std::min<size_t>(f.size(), 9);
    for (size_t i = 1; i < last; ++i) {
      uint64_t v = 0;
      if (!ToU64(f[i], v)) { ok = false; return; }
      t.total_ticks += v;
      if (i == 7) t.softirq_ticks = v;
    }
    out.push_back(t);
  });
  if (!ok || out.empty()) return std::nullopt;
  return out;
}

std::optional<std::map<std::string, std::vector<uint64_t>>> ParseSoftirqs(std::string_view text) {
  std::map<std::string, std::vector<uint64_t>> out;
  size_t ncpu = 0;
  bool header = true, ok = true;
  ForEachLine(text, [&](std::string_view line) {
    auto f = Fields(line);
    if (f.empty()) return;
    if (header) {
      ncpu = f.size();
      header = false;
      return;
    }
    std::string_view name = f[0];
    if (name.empty() || name.back() != ':') { ok = false; return; }
    name.remove_suffix(1);
    std::vector<uint64_t> counts;
    for (size_t i = 1; i < f.size() && counts.size() < ncpu; ++i) {
      uint64_t v = 0;
      if (!ToU64(f[i], v)) { ok = false; return; }
      counts.push_back(v);
    }
    out[std::string(name)] = std::move(counts);
  });
  if (!ok || header || out.empty()) return std::nullopt;
  return out;
}

std::optional<BusiestCpu> BusiestSoftirqCpu(const std::vector<CpuTimes>& before,
                                            const std::vector<CpuTimes>& after) {
  std::optional<BusiestCpu> best;
  for (const auto& a : after) {
    for (const auto& b : before) {
      if (b.cpu != a.cpu || a.total_ticks <= b.total_ticks || a.softirq_ticks < b.softirq_ticks) {
        continue;
      }
      double ratio = static_cast<double>(a.softirq_ticks - b.softirq_ticks) /
                     static_cast<double>(a.total_ticks - b.total_ticks);
      if (!best || ratio > best->ratio) best = BusiestCpu{a.cpu, ratio};
    }
  }
  return best;
}

}  // namespace rxe::collectors
