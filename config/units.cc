#include "config/units.h"

#include <array>
#include <limits>

namespace rxe::config {
namespace {

struct Unit {
  std::string_view name;
  int64_t ms;
};
constexpr int64_t kDayMs = 24LL * 3600 * 1000;
constexpr std::array<Unit, 7> kDurationUnits{{
    {"y", 365 * kDayMs}, {"w", 7 * kDayMs}, {"d", kDayMs}, {"h", 3600 * 1000},
    {"m", 60 * 1000}, {"s", 1000}, {"ms", 1}}};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Parses a run of digits into *out; false on overflow or empty run.
bool ParseDigits(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

}  // namespace

std::optional<Duration> ParseDuration(std::string_view text) {
  if (text == "0") return Duration{0};
  if (text.empty()) return std::nullopt;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t total = 0;
  size_t last_unit = 0;
  bool first = true;
  size_t i = 0;
  while (i < text.size()) {
    const size_t num_start = i;
    while (i < text.size() && IsDigit(text[i])) ++i;
    uint64_t value = 0;
    if (!ParseDigits(text.substr(num_start, i - num_start), &value)) return std::nullopt;
    const size_t unit_start = i;
    while (i < text.size() && IsAlpha(text[i])) ++i;
    const std::string_view unit = text.substr(unit_start, i - unit_start);
    size_t idx = 0;
    while (idx < kDurationUnits.size() && kDurationUnits[idx].name != unit) ++idx;
    if (idx == kDurationUnits.size()) return std::nullopt;
    if (!first && idx <= last_unit) return std::nullopt;  // units must decrease, once each
    first = false;
    last_unit = idx;
    const int64_t unit_ms = kDurationUnits[idx].ms;
    if (value > static_cast<uint64_t>(kMax / unit_ms)) return std::nullopt;
    const int64_t part = static_cast<int64_t>(value) * unit_ms;
    if (total > kMax - part) return std::nullopt;
    total += part;
  }
  return Duration{total};
}

std::string FormatDuration(Duration d) {
  int64_t ms = d.count();
  if (ms == 0) return "0s";
  std::string out;
  if (ms < 0) {
    out = "-";
    ms = -ms;
  }
  for (const Unit& u : kDurationUnits) {
    const int64_t n = ms / u.ms;
    if (n == 0) continue;
    out += std::to_string(n);
    out += u.name;
    ms -= n * u.ms;
  }
  return out;
}

std::optional<uint64_t> ParseBytes(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && IsDigit(text[i])) ++i;
  uint64_t value = 0;
  if (!ParseDigits(text.substr(0, i), &value)) return std::nullopt;
  const std::string_view suffix = text.substr(i);
  uint64_t mult = 1;
  if (suffix.empty() || suffix == "B") {
    mult = 1;
  } else if (suffix == "KiB") {
    mult = 1ULL << 10;
  } else if (suffix == "MiB") {
    mult = 1ULL << 20;
  } else if (suffix == "GiB") {
    mult = 1ULL << 30;
  } else {
    return std::nullopt;
  }
  if (value > std::numeric_limits<uint64_t>::max() / mult) return std::nullopt;
  return value * mult;
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes != 0) {
    if (bytes % (1ULL << 30) == 0) return std::to_string(bytes >> 30) + "GiB";
    if (bytes % (1ULL << 20) == 0) return std::to_string(bytes >> 20) + "MiB";
    if (bytes % (1ULL << 10) == 0) return std::to_string(bytes >> 10) + "KiB";
  }
  return std::to_string(bytes);
}

}  // namespace rxe::config
