// Terminal table and CSV of a sweep.
#include <cmath>

#include "common/text_format.h"
#include "sweep/sweep_render.h"

namespace rxe::sweep {
namespace {

using textfmt::CsvField;
using textfmt::Fixed;

/// Gb/s with 3 decimals (the article's 0.021 .. 5.11); µs with 2.
int Decimals(Metric m) { return m == Metric::kBandwidth ? 3 : 2; }

std::string Change(const PointSummary& p) {
  if (p.is_baseline) return "baseline";
  if (!p.change_pct) return "-";
  const double r = std::round(*p.change_pct);
  return (r >= 0 ? "+" : "") + Fixed(r, 0) + "%";
}

std::string Number(const std::optional<double>& v, int decimals) {
  return v ? Fixed(*v, decimals) : "";
}

}  // namespace

std::string RenderTable(const Summary& s) {
  const int d = Decimals(s.metric);
  const std::string unit = MetricUnit(s.metric);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({std::string(ParamName(s.param)), "median " + unit, "min-max " + unit,
                  "vs " + s.baseline_label, "ok"});
  std::vector<std::string> notes;
  for (const auto& p : s.points) {
    std::string ok = std::to_string(p.samples) + "/" + std::to_string(p.samples + p.failures);
    if (!p.median) {
      rows.push_back({p.label, "failed", "-", "-", ok});
      notes.push_back(p.label + ": " + p.first_error);
      continue;
    }
    rows.push_back(
        {p.label, Fixed(*p.median, d), Fixed(*p.min, d) + "-" + Fixed(*p.max, d), Change(p), ok});
    if (p.failures > 0) notes.push_back(p.label + ": " + p.first_error);
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i)
      width[i] = std::max(width[i], textfmt::DisplayWidth(r[i]));
  }
  std::string out = s.title + (s.target.empty() ? "" : " -> " + s.target) + "\n";
  out += "held: " + s.held + "; " + std::to_string(s.repeat) + " repeat" +
         (s.repeat == 1 ? "" : "s") + " per point\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line = " ";
    for (size_t i = 0; i < rows[r].size(); ++i) {
      // First column left-aligned, numbers right-aligned.
      line += "  " + (i == 0 ? textfmt::PadRight(rows[r][i], width[i])
                             : textfmt::PadLeft(rows[r][i], width[i]));
    }
    out += line + "\n";
  }
  if (!s.baseline_measured) {
    out += "  (baseline " + s.baseline_label + " has no measurement: no change column)\n";
  }
  for (const auto& n : notes) out += "  failed " + n + "\n";
  if (!s.complete) {
    out += "  (interrupted: " + std::to_string(s.points.size()) + " of " +
           std::to_string(s.planned_points) + " points finished)\n";
  }
  return out;
}

std::string RenderCsv(const Summary& s) {
  const std::string u = s.metric == Metric::kBandwidth ? "gbps" : "us";
  std::string out = "parameter,value,x,baseline,repeats,ok,failed,median_" + u + ",min_" + u +
                    ",max_" + u + ",q1_" + u + ",q3_" + u + ",change_pct,samples,error\n";
  const int d = 6;
  for (const auto& p : s.points) {
    std::string samples;
    for (double v : p.values) samples += (samples.empty() ? "" : ";") + Fixed(v, d);
    out += CsvField(ParamName(s.param)) + "," + CsvField(p.label) + "," + textfmt::JsonNumber(p.x) +
           "," + (p.is_baseline ? "1" : "0") + "," + std::to_string(s.repeat) + "," +
           std::to_string(p.samples) + "," + std::to_string(p.failures) + "," +
           Number(p.median, d) + "," + Number(p.min, d) + "," + Number(p.max, d) + "," +
           Number(p.q1, d) + "," + Number(p.q3, d) + "," + Number(p.change_pct, 2) + "," +
           CsvField(samples) + "," + CsvField(p.first_error) + "\n";
  }
  return out;
}

}  // namespace rxe::sweep
