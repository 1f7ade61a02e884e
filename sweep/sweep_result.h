// Sweep results and their aggregation (pure): per point the median, min,
// max, quartiles of the repeats and the change relative to the baseline point.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_plan.h"

namespace rxe::sweep {

/// What one probe of one point gave.
struct PointOutcome {
  std::optional<double> value;  // Gb/s (bandwidth) or µs (latency); nullopt = failed
  std::string error;            // "reason: detail" when failed
  bool cancelled = false;       // stopped by Ctrl-C: not a result, not recorded
};

/// A finished point: every repeat ran (successfully or not).
struct PointRun {
  size_t index = 0;                 // into plan.points
  std::vector<double> samples;      // successful repeats, in run order
  std::vector<std::string> errors;  // failed repeats
};

struct SweepResult {
  Plan plan;
  std::string target;            // "10.0.0.2:19792" (for titles and JSON)
  std::vector<PointRun> points;  // finished points, in plan order
  bool complete = false;         // false: interrupted, later points missing
};

struct PointSummary {
  size_t index = 0;
  std::string label;
  double x = 0;
  bool is_baseline = false;
  size_t samples = 0;
  size_t failures = 0;
  std::vector<double> values;                      // the samples, in run order
  std::optional<double> median, min, max, q1, q3;  // nullopt without samples
  std::optional<double> change_pct;  // (median - baseline median) / baseline median * 100
  std::string first_error;           // of the failed repeats, for the table
};

struct Summary {
  std::string name, title, target, held;
  Param param = Param::kSize;
  Metric metric = Metric::kBandwidth;
  int repeat = 0;
  bool complete = false;
  std::string baseline_label;
  bool baseline_measured = false;  // the baseline point finished with >= 1 sample
  size_t planned_points = 0;
  std::vector<PointSummary> points;  // finished points, plan order
};

/// Median of the values (mean of the two middle ones for an even count); 0 if empty.
double Median(std::vector<double> values);
/// Quantile q in [0,1] with linear interpolation between order statistics
/// (R type 7, numpy's default); 0 if empty.
double Quantile(std::vector<double> values, double q);

Summary Summarize(const SweepResult& result);

/// "Gb/s" or "µs".
const char* MetricUnit(Metric m);
/// "bandwidth" or "latency".
const char* MetricName(Metric m);

}  // namespace rxe::sweep
