// Structured logging in Prometheus' style: logfmt (default) or JSON lines on
// stderr, with a level filter. Thread-safe.
//
//   rxe::log::Info("probe failed", {{"peer", "b"}, {"reason", "timeout"}});
//   -> ts=2026-11-29T09:30:00.123Z level=info msg="probe failed" peer=b reason=timeout
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace rxe::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };
enum class Format { kLogfmt, kJson };

using Field = std::pair<std::string_view, std::string>;
using Fields = std::initializer_list<Field>;

std::optional<Level> ParseLevel(std::string_view s);
std::optional<Format> ParseFormat(std::string_view s);

/// Sets level and format; safe to call again (e.g. from tests).
void Init(Level level, Format format);
bool Enabled(Level level);

/// Formats one line (pure; exposed for tests). `ts` is an RFC 3339 timestamp.
std::string FormatLine(Format format, std::string_view ts, Level level,
                       std::string_view msg, Fields fields);

void Log(Level level, std::string_view msg, Fields fields = {});
inline void Debug(std::string_view m, Fields f = {}) { Log(Level::kDebug, m, f); }
inline void Info(std::string_view m, Fields f = {}) { Log(Level::kInfo, m, f); }
inline void Warn(std::string_view m, Fields f = {}) { Log(Level::kWarn, m, f); }
inline void Error(std::string_view m, Fields f = {}) { Log(Level::kError, m, f); }

}  // namespace rxe::log
