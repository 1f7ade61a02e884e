// JSON of a sweep (and of a run of sweeps).
#include "common/text_format.h"
#include "sweep/sweep_render.h"

namespace rxe::sweep {
namespace {

using textfmt::JsonNumber;
using textfmt::JsonString;

std::string Indent(const std::string& text, const std::string& pad) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out += pad + text.substr(start, nl - start);
    if (nl < text.size()) out += "\n";
    start = nl + 1;
  }
  return out;
}

std::string PointJson(const PointSummary& p) {
  std::string samples;
  for (double v : p.values) samples += (samples.empty() ? "" : ", ") + JsonNumber(v);
  return "{\"value\": " + JsonString(p.label) + ", \"x\": " + JsonNumber(p.x) +
         ", \"baseline\": " + (p.is_baseline ? "true" : "false") +
         ", \"ok\": " + std::to_string(p.samples) + ", \"failed\": " + std::to_string(p.failures) +
         ", \"median\": " + JsonNumber(p.median) + ", \"min\": " + JsonNumber(p.min) +
         ", \"max\": " + JsonNumber(p.max) + ", \"q1\": " + JsonNumber(p.q1) +
         ", \"q3\": " + JsonNumber(p.q3) + ", \"change_pct\": " + JsonNumber(p.change_pct) +
         ", \"samples\": [" + samples + "]" +
         (p.first_error.empty() ? "" : ", \"error\": " + JsonString(p.first_error)) + "}";
}

}  // namespace

std::string RenderJson(const Summary& s) {
  std::string out = "{\n";
  out += "  \"sweep\": " + JsonString(s.name) + ",\n";
  out += "  \"title\": " + JsonString(s.title) + ",\n";
  out += "  \"parameter\": " + JsonString(ParamName(s.param)) + ",\n";
  out += "  \"metric\": " + JsonString(MetricName(s.metric)) + ",\n";
  out += "  \"unit\": " + JsonString(MetricUnit(s.metric)) + ",\n";
  out += "  \"target\": " + JsonString(s.target) + ",\n";
  out += "  \"held\": " + JsonString(s.held) + ",\n";
  out += "  \"repeat\": " + std::to_string(s.repeat) + ",\n";
  out += "  \"baseline\": " + JsonString(s.baseline_label) + ",\n";
  out += "  \"complete\": " + std::string(s.complete ? "true" : "false") + ",\n";
  out += "  \"planned_points\": " + std::to_string(s.planned_points) + ",\n";
  out += "  \"points\": [";
  for (size_t i = 0; i < s.points.size(); ++i) {
    out += (i == 0 ? "\n    " : ",\n    ") + PointJson(s.points[i]);
  }
  out += s.points.empty() ? "]\n" : "\n  ]\n";
  return out + "}\n";
}

std::string RenderJsonRun(const std::vector<Summary>& sweeps, bool interrupted) {
  std::string out =
      "{\n  \"interrupted\": " + std::string(interrupted ? "true" : "false") + ",\n  \"sweeps\": [";
  for (size_t i = 0; i < sweeps.size(); ++i) {
    std::string one = RenderJson(sweeps[i]);
    one.pop_back();  // trailing newline
    out += (i == 0 ? "\n" : ",\n") + Indent(one, "    ");
  }
  out += sweeps.empty() ? "]\n" : "\n  ]\n";
  return out + "}\n";
}

}  // namespace rxe::sweep
