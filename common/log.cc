#include "common/log.h"
#include "common/log_caught.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "common/text_escape.h"

namespace rxe::log {
namespace {

std::atomic<int> g_level{static_cast<int>(Level::kInfo)};
std::atomic<int> g_format{static_cast<int>(Format::kLogfmt)};

std::shared_ptr<spdlog::logger> Logger() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = std::make_shared<spdlog::logger>(
        "rxe", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("%v");
    l->set_level(spdlog::level::trace);
    l->flush_on(spdlog::level::trace);
    return l;
  }();
  return logger;
}

const char* LevelName(Level l) {
  switch (l) {
    case Level::kDebug: return "debug";
    case Level::kInfo: return "info";
    case Level::kWarn: return "warn";
    case Level::kError: return "error";
  }
  return "info";
}

bool NeedsQuotes(std::string_view v) {
  if (v.empty()) return true;
  for (char c : v) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return true;
  }
  return false;
}

void AppendLogfmt(std::string& out, std::string_view k, std::string_view v) {
  if (!out.empty()) out += ' ';
  out += k;
  out += '=';
  if (NeedsQuotes(v)) {
    out += '"';
    AppendJsonEscaped(out, v);
    out += '"';
  } else {
    out += v;
  }
}

void AppendJson(std::string& out, std::string_view k, std::string_view v) {
  out += out.size() > 1 ? ",\"" : "\"";
  AppendJsonEscaped(out, k);
  out += "\":\"";
  AppendJsonEscaped(out, v);
  out += '"';
}

std::string Now() {
  auto now = std::chrono::system_clock::now();
  auto secs = std::chrono::system_clock::to_time_t(now);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

std::optional<Level> ParseLevel(std::string_view s) {
  if (s == "debug") return Level::kDebug;
  if (s == "info") return Level::kInfo;
  if (s == "warn") return Level::kWarn;
  if (s == "error") return Level::kError;
  return std::nullopt;
}

std::optional<Format> ParseFormat(std::string_view s) {
  if (s == "logfmt") return Format::kLogfmt;
  if (s == "json") return Format::kJson;
  return std::nullopt;
}

void Init(Level level, Format format) {
  g_level = static_cast<int>(level);
  g_format = static_cast<int>(format);
}

bool Enabled(Level level) { return static_cast<int>(level) >= g_level.load(); }

std::string FormatLine(Format format, std::string_view ts, Level level, std::string_view msg,
                       Fields fields) {
  std::string out;
  if (format == Format::kJson) {
    out = "{";
    AppendJson(out, "ts", ts);
    AppendJson(out, "level", LevelName(level));
    AppendJson(out, "msg", msg);
    for (const auto& [k, v] : fields) AppendJson(out, k, v);
    out += '}';
  } else {
    AppendLogfmt(out, "ts", ts);
    AppendLogfmt(out, "level", LevelName(level));
    AppendLogfmt(out, "msg", msg);
    for (const auto& [k, v] : fields) AppendLogfmt(out, k, v);
  }
  return out;
}

void Log(Level level, std::string_view msg, Fields fields) {
  if (!Enabled(level)) return;
  Logger()->info(FormatLine(static_cast<Format>(g_format.load()), Now(), level, msg, fields));
}

void CaughtError(std::string_view msg, const std::exception& e) noexcept {
  try {
    Error(msg, {{"err", e.what()}});
  } catch (...) {  // NOLINT(bugprone-empty-catch): nothing left to report with
  }
}

}  // namespace rxe::log
