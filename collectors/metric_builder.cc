#include "collectors/metric_builder.h"

namespace rxe::collectors {

FamilyBuilder::FamilyBuilder(std::string name, std::string help, prometheus::MetricType type) {
  family_.name = std::move(name);
  family_.help = std::move(help);
  family_.type = type;
}

FamilyBuilder& FamilyBuilder::Add(const LabelPairs& labels, double value) {
  prometheus::ClientMetric m;
  for (const auto& [k, v] : labels) m.label.push_back(prometheus::ClientMetric::Label{k, v});
  switch (family_.type) {
    case prometheus::MetricType::Counter: m.counter.value = value; break;
    case prometheus::MetricType::Gauge: m.gauge.value = value; break;
    default: m.untyped.value = value; break;
  }
  family_.metric.push_back(std::move(m));
  return *this;
}

void FamilyBuilder::AppendTo(std::vector<prometheus::MetricFamily>& out) {
  if (!family_.metric.empty()) out.push_back(std::move(family_));
  family_.metric.clear();
}

}  // namespace rxe::collectors
