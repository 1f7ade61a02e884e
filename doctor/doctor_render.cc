#include "doctor/doctor_render.h"

#include <array>

#include "common/text_format.h"

namespace rxe::doctor {
namespace {

using textfmt::JsonString;

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

std::string Subject(const CheckResult& r) {
  if (!r.device.empty()) return " " + r.device + "/" + std::to_string(r.port);
  if (!r.peer.empty()) return " peer " + r.peer;
  return "";
}

std::array<size_t, 4> Counts(const std::vector<CheckResult>& results) {
  std::array<size_t, 4> n{};
  for (const auto& r : results) ++n[static_cast<size_t>(r.status)];
  return n;
}

}  // namespace

std::string RenderText(const std::vector<CheckResult>& results) {
  std::string out;
  for (const auto& r : results) {
    out +=
        "[" + Upper(StatusName(r.status)) + "] " + r.check + Subject(r) + ": " + r.evidence + "\n";
    if (!r.fix.empty()) out += "       fix: " + r.fix + "\n";
  }
  const auto n = Counts(results);
  const CheckStatus worst = Worst(results);
  out += "\n" + std::to_string(results.size()) + " checks: " + std::to_string(n[0]) + " pass, " +
         std::to_string(n[1]) + " warn, " + std::to_string(n[2]) + " fail, " +
         std::to_string(n[3]) + " skipped; result " + Upper(StatusName(worst)) + " (exit status " +
         std::to_string(ExitStatus(worst)) + ")\n";
  return out;
}

std::string RenderJson(const std::vector<CheckResult>& results) {
  std::string out = "{\n  \"checks\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    out += i == 0 ? "\n" : ",\n";
    out += "    {\"check\": " + JsonString(r.check) +
           ", \"status\": " + JsonString(StatusName(r.status));
    if (!r.device.empty()) {
      out += ", \"device\": " + JsonString(r.device) + ", \"port\": " + std::to_string(r.port);
    }
    if (!r.peer.empty()) out += ", \"peer\": " + JsonString(r.peer);
    out += ", \"evidence\": " + JsonString(r.evidence);
    if (!r.fix.empty()) out += ", \"fix\": " + JsonString(r.fix);
    out += "}";
  }
  out += results.empty() ? "],\n" : "\n  ],\n";
  const auto n = Counts(results);
  const CheckStatus worst = Worst(results);
  out += "  \"summary\": {\"pass\": " + std::to_string(n[0]) +
         ", \"warn\": " + std::to_string(n[1]) + ", \"fail\": " + std::to_string(n[2]) +
         ", \"skip\": " + std::to_string(n[3]) + ", \"worst\": " + JsonString(StatusName(worst)) +
         ", \"exit_status\": " + std::to_string(ExitStatus(worst)) + "}\n}\n";
  return out;
}

}  // namespace rxe::doctor
