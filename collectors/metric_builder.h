// Small helpers to build prometheus::MetricFamily values at scrape time.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <utility>
#include <vector>

namespace rxe::collectors {

using LabelPairs = std::vector<std::pair<std::string, std::string>>;

/// A family being built; add samples with Add(labels, value).
class FamilyBuilder {
 public:
  FamilyBuilder(std::string name, std::string help, prometheus::MetricType type);
  FamilyBuilder& Add(const LabelPairs& labels, double value);
  bool empty() const { return family_.metric.empty(); }
  /// Moves the family into `out` if it has at least one sample.
  void AppendTo(std::vector<prometheus::MetricFamily>& out);

 private:
  prometheus::MetricFamily family_;
};

}  // namespace rxe::collectors
