#include <algorithm>
#include <cmath>

#include "sweep/sweep_result.h"

namespace rxe::sweep {

double Quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return values[lo] + (values[hi] - values[lo]) * frac;
}

double Median(std::vector<double> values) { return Quantile(std::move(values), 0.5); }

const char* MetricUnit(Metric m) { return m == Metric::kBandwidth ? "Gb/s" : "µs"; }
const char* MetricName(Metric m) { return m == Metric::kBandwidth ? "bandwidth" : "latency"; }

Summary Summarize(const SweepResult& r) {
  Summary s;
  s.name = r.plan.name;
  s.title = r.plan.title;
  s.target = r.target;
  s.held = HeldSummary(r.plan);
  s.param = r.plan.param;
  s.metric = r.plan.metric;
  s.repeat = r.plan.repeat;
  s.complete = r.complete;
  s.planned_points = r.plan.points.size();
  if (r.plan.baseline < r.plan.points.size())
    s.baseline_label = r.plan.points[r.plan.baseline].label;

  std::optional<double> base_median;
  for (const PointRun& run : r.points) {
    if (run.index == r.plan.baseline && !run.samples.empty()) base_median = Median(run.samples);
  }
  s.baseline_measured = base_median.has_value();
  for (const PointRun& run : r.points) {
    if (run.index >= r.plan.points.size()) continue;
    const Point& pt = r.plan.points[run.index];
    PointSummary p;
    p.index = run.index;
    p.label = pt.label;
    p.x = pt.x;
    p.is_baseline = run.index == r.plan.baseline;
    p.samples = run.samples.size();
    p.failures = run.errors.size();
    p.values = run.samples;
    if (!run.errors.empty()) p.first_error = run.errors.front();
    if (!run.samples.empty()) {
      p.median = Median(run.samples);
      p.min = *std::min_element(run.samples.begin(), run.samples.end());
      p.max = *std::max_element(run.samples.begin(), run.samples.end());
      p.q1 = Quantile(run.samples, 0.25);
      p.q3 = Quantile(run.samples, 0.75);
      if (base_median && *base_median != 0) {
        p.change_pct = p.is_baseline ? 0.0 : (*p.median - *base_median) / *base_median * 100.0;
      }
    }
    s.points.push_back(std::move(p));
  }
  return s;
}

}  // namespace rxe::sweep
