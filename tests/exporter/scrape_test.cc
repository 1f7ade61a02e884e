#include "exporter/scrape.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "collectors/metric_builder.h"
#include "exporter/self_metrics.h"

namespace rxe::exporter {
namespace {

using collectors::FamilyBuilder;
using prometheus::MetricFamily;
using prometheus::MetricType;

enum class Outcome { kOk, kNoData, kFail, kThrow };

class FakeCollector : public collectors::Collector {
 public:
  FakeCollector(std::string name, Outcome outcome) : name_(std::move(name)), outcome_(outcome) {}
  std::string_view Name() const override { return name_; }
  Status Collect(collectors::ScrapeContext& ctx, std::vector<MetricFamily>& out) override {
    seen_devices_filter = ctx.devices.Matches("rxe0") && !ctx.devices.Matches("mlx5_0");
    switch (outcome_) {
      case Outcome::kOk:
        FamilyBuilder("rxe_fake_total", "fake", MetricType::Counter)
            .Add({{"collector", name_}}, 1)
            .AppendTo(out);
        return Status::Ok();
      case Outcome::kNoData:
        return Error::Make(ErrorCode::kNoData, "nothing here");
      case Outcome::kFail:
        return Error::Make(ErrorCode::kUnavailable, "broken");
      case Outcome::kThrow:
        throw std::runtime_error("boom");
    }
    return Status::Ok();
  }
  bool seen_devices_filter = false;

 private:
  std::string name_;
  Outcome outcome_;
};

const MetricFamily* Find(const std::vector<MetricFamily>& fams, const std::string& name) {
  for (const auto& f : fams) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

double Value(const MetricFamily& f, const std::string& collector) {
  for (const auto& m : f.metric) {
    if (m.label.size() == 1 && m.label[0].value == collector) return m.gauge.value;
  }
  return -1;
}

TEST(CollectorSet, FailuresAreIsolated) {
  std::vector<std::unique_ptr<collectors::Collector>> cs;
  cs.push_back(std::make_unique<FakeCollector>("a", Outcome::kOk));
  cs.push_back(std::make_unique<FakeCollector>("b", Outcome::kThrow));
  cs.push_back(std::make_unique<FakeCollector>("c", Outcome::kFail));
  cs.push_back(std::make_unique<FakeCollector>("d", Outcome::kNoData));
  auto* last = static_cast<FakeCollector*>(cs.back().get());
  cs.push_back(std::make_unique<FakeCollector>("e", Outcome::kOk));
  CollectorSet set(std::move(cs), collectors::DeviceMatcher("rxe.*", ""));

  std::vector<MetricFamily> out;
  set.Collect(out);
  out = MergeFamilies(std::move(out));
  const MetricFamily* success = Find(out, "rxe_exporter_scrape_collector_success");
  ASSERT_NE(success, nullptr);
  EXPECT_EQ(Value(*success, "a"), 1);
  EXPECT_EQ(Value(*success, "b"), 0);
  EXPECT_EQ(Value(*success, "c"), 0);
  EXPECT_EQ(Value(*success, "d"), 1) << "kNoData is success";
  EXPECT_EQ(Value(*success, "e"), 1);
  const MetricFamily* duration = Find(out, "rxe_exporter_scrape_collector_duration_seconds");
  ASSERT_NE(duration, nullptr);
  EXPECT_EQ(duration->metric.size(), 5u);
  const MetricFamily* fake = Find(out, "rxe_fake_total");
  ASSERT_NE(fake, nullptr);
  EXPECT_EQ(fake->metric.size(), 2u) << "a and e contribute, merged into one family";
  EXPECT_TRUE(last->seen_devices_filter);
}

TEST(MergeFamilies, MergesSameNameAndDropsTypeConflicts) {
  std::vector<MetricFamily> in;
  FamilyBuilder("x_total", "x", MetricType::Counter).Add({{"port", "1"}}, 1).AppendTo(in);
  FamilyBuilder("y", "y", MetricType::Gauge).Add({}, 2).AppendTo(in);
  FamilyBuilder("x_total", "x", MetricType::Counter).Add({{"port", "2"}}, 3).AppendTo(in);
  FamilyBuilder("y", "y", MetricType::Counter).Add({}, 4).AppendTo(in);
  auto out = MergeFamilies(std::move(in));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "x_total");
  EXPECT_EQ(out[0].metric.size(), 2u);
  EXPECT_EQ(out[1].name, "y");
  ASSERT_EQ(out[1].metric.size(), 1u);
  EXPECT_EQ(out[1].metric[0].gauge.value, 2);
  const std::string text = SerializeText(out);
  EXPECT_EQ(
      text,
      "# HELP x_total x\n# TYPE x_total counter\nx_total{port=\"1\"} 1\nx_total{port=\"2\"} 3\n"
      "# HELP y y\n# TYPE y gauge\ny 2\n");
}

TEST(SelfMetrics, BuildInfoAndReload) {
  std::vector<MetricFamily> out;
  AppendSelfMetrics(ReloadStatus{false, 1234.5}, out);
  const std::string text = SerializeText(out);
  EXPECT_NE(text.find("rxe_exporter_build_info{version=\""), std::string::npos);
  EXPECT_NE(text.find("\nrxe_exporter_config_last_reload_successful 0\n"), std::string::npos);
  EXPECT_NE(text.find("\nrxe_exporter_config_last_reload_success_timestamp_seconds 1234.5\n"),
            std::string::npos);
}

TEST(SelfMetrics, HttpListenerCounters) {
  std::vector<MetricFamily> out;
  AppendHttpMetrics({{"127.0.0.1:19791", 10, 2, 1, 3, 4}, {"[::1]:19791", 5, 0, 0, 0, 1}}, out);
  const std::string text = SerializeText(out);
  EXPECT_NE(text.find("rxe_exporter_http_connections_total{listener=\"127.0.0.1:19791\","
                      "outcome=\"evicted\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rxe_exporter_http_connections_total{listener=\"127.0.0.1:19791\","
                      "outcome=\"rejected\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("rxe_exporter_http_open_connections{listener=\"[::1]:19791\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("rxe_exporter_http_headers_too_large_total{listener=\"127.0.0.1:19791\"} 3\n"),
            std::string::npos);
  std::vector<MetricFamily> none;
  AppendHttpMetrics({}, none);
  EXPECT_TRUE(none.empty());
  std::vector<MetricFamily> render;
  AppendRenderMetrics(3, render);
  EXPECT_NE(SerializeText(render).find("\nrxe_exporter_scrapes_coalesced_total 3\n"), std::string::npos);
}

}  // namespace
}  // namespace rxe::exporter
