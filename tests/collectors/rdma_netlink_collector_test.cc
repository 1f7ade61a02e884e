// The rdma_netlink collector pipeline with a fake NldevSource: device filter,
// hw_counters_exported, hw_counter_source: sysfs, kernel errors per port,
// reconnect after a transport failure; plus the kNoData path on this host.
#include "collectors/rdma_netlink_collector.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "collectors/factory.h"
#include "collectors/rdma_netlink_metrics.h"

namespace rxe::collectors {
namespace {

using rdma::RdmaDevice;
using rdma::RdmaHwStats;
using rdma::RdmaResSummary;

struct FakeState {
  std::vector<RdmaDevice> devices;
  std::map<std::pair<uint32_t, uint32_t>, Result<RdmaHwStats>> stats;
  std::map<uint32_t, Result<RdmaResSummary>> res;
  bool break_on_list = false;
  int created = 0;
  int stat_calls = 0;
};

class FakeSource : public rdma::NldevSource {
 public:
  explicit FakeSource(FakeState* s) : s_(s) {}
  Result<std::vector<RdmaDevice>> ListDevices() override {
    if (s_->break_on_list) {
      broken_ = true;
      return Error{ErrorCode::kDeadlineExceeded, ETIMEDOUT, "no reply"};
    }
    return s_->devices;
  }
  Result<RdmaHwStats> GetHwStats(uint32_t dev, uint32_t port) override {
    ++s_->stat_calls;
    auto it = s_->stats.find({dev, port});
    if (it == s_->stats.end()) return Error::FromErrno(EINVAL, "STAT_GET");
    return it->second;
  }
  Result<RdmaResSummary> GetResources(uint32_t dev) override {
    auto it = s_->res.find(dev);
    if (it == s_->res.end()) return Error::FromErrno(ENODEV, "RES_GET");
    return it->second;
  }
  bool broken() const override { return broken_; }

 private:
  FakeState* s_;
  bool broken_ = false;
};

std::unique_ptr<Collector> Make(FakeState* s, config::HwCounterSource src) {
  config::CollectorsConfig cfg;
  cfg.hw_counter_source = src;
  return NewRdmaNetlinkCollector(cfg, [s]() -> Result<std::unique_ptr<rdma::NldevSource>> {
    ++s->created;
    return std::unique_ptr<rdma::NldevSource>(new FakeSource(s));
  });
}

FakeState TwoDevices() {
  FakeState s;
  s.devices = {{.index = 3, .name = "rxe0", .port_count = 1},
               {.index = 7, .name = "mlx5_0", .port_count = 2}};
  s.stats.emplace(std::make_pair(3u, 1u),
                  RdmaHwStats{3, "rxe0", 1, {{"sent_pkts", 10}, {"new_thing", 5}}});
  s.stats.emplace(std::make_pair(7u, 1u), RdmaHwStats{7, "mlx5_0", 1, {{"rcvd_pkts", 4}}});
  s.stats.emplace(std::make_pair(7u, 2u), RdmaHwStats{7, "mlx5_0", 2, {}});  // no counters
  s.res.emplace(3u, RdmaResSummary{3, "rxe0", {{"pd", 1}, {"qp", 2}}});
  return s;
}

const prometheus::MetricFamily* Find(const std::vector<prometheus::MetricFamily>& fams,
                                     const std::string& name) {
  for (const auto& f : fams) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

TEST(RdmaNetlinkCollectorTest, ExportsCountersAndResources) {
  FakeState s = TwoDevices();
  auto c = Make(&s, config::HwCounterSource::kAuto);
  EXPECT_EQ(c->Name(), "rdma_netlink");
  ScrapeContext ctx;
  std::vector<prometheus::MetricFamily> out;
  Status st = c->Collect(ctx, out);
  ASSERT_TRUE(st.ok()) << st.error().message;  // EINVAL/ENODEV per device are benign
  // Port with an empty counter list is left to the sysfs fallback.
  EXPECT_THAT(ctx.hw_counters_exported,
              ::testing::ElementsAre(std::make_pair(std::string("mlx5_0"), 1),
                                     std::make_pair(std::string("rxe0"), 1)));
  const auto* sent = Find(out, "rxe_port_sent_packets_total");
  ASSERT_NE(sent, nullptr);
  ASSERT_EQ(sent->metric.size(), 1u);
  EXPECT_EQ(sent->metric[0].counter.value, 10);
  const auto* generic = Find(out, "rxe_port_hw_stat_total");
  ASSERT_NE(generic, nullptr);
  EXPECT_EQ(generic->metric[0].label[0].value, "new_thing");
  const auto* res = Find(out, "rxe_device_resources");
  ASSERT_NE(res, nullptr);
  EXPECT_EQ(res->type, prometheus::MetricType::Gauge);
  ASSERT_EQ(res->metric.size(), 2u);
  EXPECT_EQ(res->metric[1].label[0].value, "rxe0");
  EXPECT_EQ(res->metric[1].label[1].value, "qp");
  EXPECT_EQ(res->metric[1].gauge.value, 2);
}

TEST(RdmaNetlinkCollectorTest, DeviceFilterAndSysfsSource) {
  FakeState s = TwoDevices();
  auto c = Make(&s, config::HwCounterSource::kSysfs);
  ScrapeContext ctx;
  ctx.devices = DeviceMatcher("rxe.*", "");
  std::vector<prometheus::MetricFamily> out;
  ASSERT_TRUE(c->Collect(ctx, out).ok());
  EXPECT_TRUE(ctx.hw_counters_exported.empty());
  EXPECT_EQ(s.stat_calls, 0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "rxe_device_resources");
}

TEST(RdmaNetlinkCollectorTest, NonBenignKernelErrorIsReportedAfterTheRest) {
  FakeState s = TwoDevices();
  s.stats.erase({7u, 1u});
  s.stats.emplace(std::make_pair(7u, 1u), Error::FromErrno(EPERM, "STAT_GET"));
  auto c = Make(&s, config::HwCounterSource::kAuto);
  ScrapeContext ctx;
  std::vector<prometheus::MetricFamily> out;
  Status st = c->Collect(ctx, out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kPermissionDenied);
  EXPECT_EQ(ctx.hw_counters_exported.size(), 1u);  // rxe0 still exported
  EXPECT_NE(Find(out, "rxe_port_sent_packets_total"), nullptr);
}

TEST(RdmaNetlinkCollectorTest, ReconnectsAfterTransportFailure) {
  FakeState s = TwoDevices();
  auto c = Make(&s, config::HwCounterSource::kAuto);
  ScrapeContext ctx;
  std::vector<prometheus::MetricFamily> out;
  ASSERT_TRUE(c->Collect(ctx, out).ok());
  ASSERT_TRUE(c->Collect(ctx, out).ok());
  EXPECT_EQ(s.created, 1);  // one source reused across scrapes
  s.break_on_list = true;
  EXPECT_EQ(c->Collect(ctx, out).error().code, ErrorCode::kDeadlineExceeded);
  s.break_on_list = false;
  ASSERT_TRUE(c->Collect(ctx, out).ok());
  EXPECT_EQ(s.created, 2);
}

TEST(RdmaNetlinkMetricsTest, Resources) {
  std::vector<prometheus::MetricFamily> out;
  rdma::AppendResourceFamilies({}, out);
  EXPECT_TRUE(out.empty());
  rdma::AppendResourceFamilies({{1, "rxe0", {{"cm_id", 0}, {"srq", 3}}}}, out);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].metric.size(), 2u);
  EXPECT_EQ(out[0].metric[1].gauge.value, 3);
  auto p = rdma::ToPortHwCounters({1, "rxe0", 1, {{"sent_pkts", 1}}});
  EXPECT_EQ(p.device, "rxe0");
  EXPECT_EQ(p.port, 1);
  EXPECT_EQ(p.counters.size(), 1u);
}

// On a kernel without NETLINK_RDMA (this dev/CI machine) the real collector
// reports kNoData, which the exporter counts as success.
TEST(RdmaNetlinkCollectorTest, KernelWithoutRdmaNetlinkIsNoData) {
  auto c = NewRdmaNetlinkCollector(config::CollectorsConfig{});
  ScrapeContext ctx;
  std::vector<prometheus::MetricFamily> out;
  Status st = c->Collect(ctx, out);
  if (st.ok()) GTEST_SKIP() << "this kernel has RDMA netlink";
  EXPECT_EQ(st.error().code, ErrorCode::kNoData) << st.error().message;
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(ctx.hw_counters_exported.empty());
}

}  // namespace
}  // namespace rxe::collectors
