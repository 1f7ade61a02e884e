// A small builder of prometheus MetricFamily lists (one family per name, in first-use
// order), shared by the probe and ud_ping metric builders.
#pragma once

#include <prometheus/metric_family.h>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace rxe::probes {

class Families {
 public:
  prometheus::MetricFamily& Get(const std::string& name, const std::string& help,
                                prometheus::MetricType type) {
    for (auto& f : families_) {
      if (f.name == name) return f;
    }
    families_.push_back(prometheus::MetricFamily{name, help, type, {}});
    return families_.back();
  }
  void Add(const std::string& name, const std::string& help, prometheus::MetricType type,
           std::vector<prometheus::ClientMetric::Label> labels, double value) {
    prometheus::ClientMetric m;
    m.label = std::move(labels);
    if (type == prometheus::MetricType::Counter) {
      m.counter.value = value;
    } else {
      m.gauge.value = value;
    }
    Get(name, help, type).metric.push_back(std::move(m));
  }
  std::vector<prometheus::MetricFamily> Take() { return std::move(families_); }

 private:
  std::vector<prometheus::MetricFamily> families_;
};

/// A histogram series from non-cumulative bucket counts (`bounds` ascending, +Inf added).
inline prometheus::ClientMetric Histogram(std::vector<prometheus::ClientMetric::Label> labels,
                                          std::span<const double> bounds,
                                          std::span<const uint64_t> counts, uint64_t count,
                                          double sum) {
  prometheus::ClientMetric h;
  h.label = std::move(labels);
  h.histogram.sample_count = count;
  h.histogram.sample_sum = sum;
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds.size() && i < counts.size(); ++i) {
    cumulative += counts[i];
    h.histogram.bucket.push_back({cumulative, bounds[i]});
  }
  h.histogram.bucket.push_back({count, std::numeric_limits<double>::infinity()});
  return h;
}

}  // namespace rxe::probes
