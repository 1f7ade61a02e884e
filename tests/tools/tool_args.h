// Number parsing shared by the test tools' command lines.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <optional>

namespace rxe::tools {

/// `s` as a decimal uint32, or nullopt if it is not exactly one.
inline std::optional<uint32_t> ParseU32(const char* s) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(s, &end, 10);
  if (end == s || *end != '\0' || v > 0xffffffffUL) return std::nullopt;
  return static_cast<uint32_t>(v);
}

}  // namespace rxe::tools
