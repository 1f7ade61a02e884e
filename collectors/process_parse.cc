#include "collectors/process_parse.h"

#include <charconv>
#include <limits>
#include <vector>

namespace rxe::collectors {
namespace {

template <typename T>
std::optional<T> Number(std::string_view s) {
  T v{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<std::string_view> Fields(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\n') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

std::optional<ProcSelfStat> ParseProcSelfStat(std::string_view text) {
  const size_t close = text.rfind(')');  // the comm field ends at the last ')'
  if (close == std::string_view::npos) return std::nullopt;
  // fields[0] is field 3 (state), so field n is fields[n - 3].
  const std::vector<std::string_view> f = Fields(text.substr(close + 1));
  if (f.size() < 22) return std::nullopt;
  auto utime = Number<uint64_t>(f[14 - 3]);
  auto stime = Number<uint64_t>(f[15 - 3]);
  auto start = Number<uint64_t>(f[22 - 3]);
  auto vsize = Number<uint64_t>(f[23 - 3]);
  auto rss = Number<int64_t>(f[24 - 3]);
  if (!utime || !stime || !start || !vsize || !rss) return std::nullopt;
  return ProcSelfStat{*utime, *stime, *start, *vsize, *rss};
}

std::optional<uint64_t> ParseSoftLimit(std::string_view text, std::string_view name) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    // "Max open files            1024     4096     files": the name, then at
    // least one space before the soft limit (names are padded to 26 columns).
    if (line.substr(0, name.size()) != name || line.size() == name.size() ||
        line[name.size()] != ' ') {
      continue;
    }
    const std::vector<std::string_view> f = Fields(line.substr(name.size()));
    if (f.empty()) return std::nullopt;
    if (f[0] == "unlimited") return std::numeric_limits<uint64_t>::max();
    return Number<uint64_t>(f[0]);
  }
  return std::nullopt;
}

std::optional<uint64_t> ParseBootTime(std::string_view text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::vector<std::string_view> f = Fields(text.substr(pos, end - pos));
    pos = end + 1;
    if (f.size() == 2 && f[0] == "btime") return Number<uint64_t>(f[1]);
  }
  return std::nullopt;
}

}  // namespace rxe::collectors
