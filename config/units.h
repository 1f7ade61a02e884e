// Text forms of durations and byte sizes used in the config file.
//   Durations (Prometheus style): "0", or one or more <integer><unit> in
//   decreasing unit order, units y (365d), w, d, h, m, s, ms: "500ms", "1m30s".
//   Sizes: a non-negative integer of bytes, optionally with a binary suffix
//   B, KiB, MiB or GiB: "4096", "64KiB", "1MiB".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/model.h"

namespace rxe::config {

std::optional<Duration> ParseDuration(std::string_view text);
/// Prometheus-style canonical text: 90000ms -> "1m30s", 0 -> "0s".
std::string FormatDuration(Duration d);

std::optional<uint64_t> ParseBytes(std::string_view text);
/// The largest exact binary unit: 8388608 -> "8MiB", 1000 -> "1000".
std::string FormatBytes(uint64_t bytes);

}  // namespace rxe::config
