// Decoders and the collector pipeline on nldev replies captured from a real
// rdma_rxe kernel (tests/fixtures/netlink/README.md: Debian 6.1, made by
// tests/tools/nl_capture in the lab after/while perftest traffic ran).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "collectors/hw_counters.h"
#include "collectors/netlink_message.h"
#include "collectors/rdma_netlink_collector.h"
#include "collectors/rdma_netlink_decode.h"

namespace rxe::collectors::rdma {
namespace {

std::vector<uint8_t> Fixture(const std::string& name) {
  std::ifstream f(std::string(RXE_FIXTURES_DIR) + "/netlink/" + name, std::ios::binary);
  EXPECT_TRUE(f.good()) << "missing fixture " << name;
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// The single data message of a doit capture.
const nlmsghdr* Only(const std::vector<uint8_t>& bytes) {
  auto msgs = nl::SplitMessages(bytes);
  EXPECT_TRUE(msgs.ok());
  EXPECT_EQ(msgs.ok() ? msgs->size() : 0u, 1u);
  return msgs.ok() && !msgs->empty() ? (*msgs)[0] : nullptr;
}

uint64_t Get(const std::vector<std::pair<std::string, uint64_t>>& v, const std::string& name) {
  for (const auto& [n, x] : v) {
    if (n == name) return x;
  }
  ADD_FAILURE() << "no " << name;
  return 0;
}

const std::vector<std::string> kRxeCounters = {"sent_pkts",           "rcvd_pkts",
                                               "duplicate_request",   "out_of_seq_request",
                                               "rcvd_rnr_err",        "send_rnr_err",
                                               "rcvd_seq_err",        "ack_deferred",
                                               "retry_exceeded_err",  "retry_rnr_exceeded_err",
                                               "completer_retry_err", "send_err",
                                               "link_downed",         "rdma_sends",
                                               "rdma_recvs"};

TEST(RdmaNetlinkFixtureTest, DeviceDump) {
  const auto bytes = Fixture("get_dump.bin");
  auto msgs = nl::SplitMessages(bytes);
  ASSERT_TRUE(msgs.ok()) << msgs.error().message;
  ASSERT_EQ(msgs->size(), 2u);
  EXPECT_TRUE((*msgs)[0]->nlmsg_flags & NLM_F_MULTI);
  EXPECT_EQ((*msgs)[1]->nlmsg_type, NLMSG_DONE);
  auto devices = DecodeDeviceList(*msgs);
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  ASSERT_EQ(devices->size(), 1u);
  const RdmaDevice& d = (*devices)[0];
  EXPECT_EQ(d.name, "rxe0");
  EXPECT_EQ(d.port_count, 1u);
  EXPECT_EQ(d.node_type, 1);  // RDMA_NODE_IB_CA
  EXPECT_EQ(d.protocol, "roce");
  EXPECT_EQ(d.fw_version, "");  // rxe has no firmware string: attribute omitted
  EXPECT_NE(d.node_guid, 0u);
  EXPECT_EQ(d.node_guid, d.sys_image_guid);
  EXPECT_EQ(d.index, 0u);
  EXPECT_EQ(FormatGuid(d.node_guid), "5054:00ff:fe77:000a");  // EUI-64 of 52:54:00:77:00:0a
}

TEST(RdmaNetlinkFixtureTest, PortGet) {
  const auto bytes = Fixture("port_get_rxe0_1.bin");
  const nlmsghdr* h = Only(bytes);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->nlmsg_type, NldevType(RDMA_NLDEV_CMD_GET));  // kernel quirk: not PORT_GET
  auto p = DecodePort(h);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->dev_name, "rxe0");
  EXPECT_EQ(p->port, 1u);
  EXPECT_EQ(p->state, 4);       // ACTIVE
  EXPECT_EQ(p->phys_state, 5);  // LinkUp
  EXPECT_TRUE(p->netdev_index.has_value());
  EXPECT_EQ(p->netdev_name, "eth0");
}

TEST(RdmaNetlinkFixtureTest, StatGetHasTheRxeCountersAfterTraffic) {
  for (const char* file : {"stat_get_rxe0_1.bin", "stat_get_rxe0_1_busy.bin"}) {
    const auto bytes = Fixture(file);
    auto s = DecodeHwStats(Only(bytes));
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->dev_name, "rxe0");
    EXPECT_EQ(s->port, 1u);
    std::vector<std::string> names;
    for (const auto& [n, v] : s->counters) {
      names.push_back(n);
      EXPECT_NE(FindHwCounter(n), nullptr) << n << " has no curated metric";
    }
    EXPECT_EQ(names, kRxeCounters) << file;  // 6.1: 15 counters in rxe_hw_counters.c order
    EXPECT_GT(Get(s->counters, "sent_pkts"), 1000u) << file;
    EXPECT_GT(Get(s->counters, "rcvd_pkts"), 1000u) << file;
  }
  auto busy = DecodeHwStats(Only(Fixture("stat_get_rxe0_1_busy.bin")));
  auto after = DecodeHwStats(Only(Fixture("stat_get_rxe0_1.bin")));
  ASSERT_TRUE(busy.ok() && after.ok());
  EXPECT_EQ(Get(after->counters, "sent_pkts"), 28963u);  // README.md
  EXPECT_EQ(Get(after->counters, "rcvd_pkts"), 3126u);
  EXPECT_EQ(Get(after->counters, "completer_retry_err"), 19u);
  EXPECT_LT(Get(busy->counters, "sent_pkts"), Get(after->counters, "sent_pkts"));
}

TEST(RdmaNetlinkFixtureTest, ResGetIdleAndBusy) {
  auto idle = DecodeResSummary(Only(Fixture("res_get_rxe0.bin")));
  auto busy = DecodeResSummary(Only(Fixture("res_get_rxe0_busy.bin")));
  ASSERT_TRUE(idle.ok()) << idle.error().message;
  ASSERT_TRUE(busy.ok()) << busy.error().message;
  std::vector<std::string> names;
  for (const auto& [n, v] : idle->entries) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"pd", "cq", "qp", "cm_id", "mr", "ctx", "srq"}));
  for (const char* r : {"pd", "cq", "qp", "mr", "ctx"}) {
    EXPECT_GT(Get(busy->entries, r), Get(idle->entries, r)) << r;
  }
  EXPECT_GE(Get(idle->entries, "qp"), 1u);  // ib_mad's GSI QP1 exists on an idle rxe
  EXPECT_EQ(Get(idle->entries, "ctx"), 0u);
}

TEST(RdmaNetlinkFixtureTest, KernelErrors) {
  // STAT_GET for a port that does not exist: NLMSG_ERROR EINVAL echoing the request.
  const auto bad_port = Fixture("stat_get_rxe0_99.bin");
  const nlmsghdr* h = Only(bad_port);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->nlmsg_type, NLMSG_ERROR);
  EXPECT_EQ(nl::ControlMessageErrno(h), EINVAL);
  EXPECT_FALSE(DecodeHwStats(h).ok());
  // STAT_GET dump without STAT_RES: the dump ends at once with NLMSG_DONE carrying -EINVAL.
  const auto dump = Fixture("stat_dump_no_res.bin");
  h = Only(dump);
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->nlmsg_type, NLMSG_DONE);
  EXPECT_EQ(nl::ControlMessageErrno(h), EINVAL);
}

TEST(RdmaNetlinkFixtureTest, EveryTruncationFailsCleanly) {
  for (const char* file : {"stat_get_rxe0_1.bin", "res_get_rxe0.bin", "get_dump.bin"}) {
    const auto bytes = Fixture(file);
    for (size_t len = 0; len < bytes.size(); ++len) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<long>(len));
      auto msgs = nl::SplitMessages(cut);
      if (!msgs.ok()) continue;
      for (const nlmsghdr* m : *msgs) {
        (void)DecodeDevice(m).ok();  // must not crash (ASan build)
        (void)DecodeHwStats(m).ok();
        (void)DecodeResSummary(m).ok();
      }
    }
  }
}

// The whole collector on replayed captures.
class ReplaySource : public NldevSource {
 public:
  Result<std::vector<RdmaDevice>> ListDevices() override {
    const auto bytes = Fixture("get_dump.bin");
    auto msgs = nl::SplitMessages(bytes);
    if (!msgs.ok()) return msgs.error();
    return DecodeDeviceList(*msgs);
  }
  Result<RdmaHwStats> GetHwStats(uint32_t, uint32_t port) override {
    return DecodeHwStats(Only(stat_ = Fixture("stat_get_rxe0_" + std::to_string(port) + ".bin")));
  }
  Result<RdmaResSummary> GetResources(uint32_t) override {
    return DecodeResSummary(Only(res_ = Fixture("res_get_rxe0_busy.bin")));
  }
  bool broken() const override { return false; }

 private:
  std::vector<uint8_t> stat_, res_;
};

TEST(RdmaNetlinkFixtureTest, CollectorPipeline) {
  auto c = NewRdmaNetlinkCollector(config::CollectorsConfig{},
                                   []() -> Result<std::unique_ptr<NldevSource>> {
                                     return std::unique_ptr<NldevSource>(new ReplaySource);
                                   });
  ScrapeContext ctx;
  std::vector<prometheus::MetricFamily> out;
  Status st = c->Collect(ctx, out);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(ctx.hw_counters_exported.count({"rxe0", 1}), 1u);
  auto expected = DecodeHwStats(Only(Fixture("stat_get_rxe0_1.bin")));
  ASSERT_TRUE(expected.ok());
  size_t hw_families = 0, resources = 0;
  for (const auto& f : out) {
    if (f.name == "rxe_device_resources") resources = f.metric.size();
    if (f.name == "rxe_port_sent_packets_total") {
      ASSERT_EQ(f.metric.size(), 1u);
      EXPECT_EQ(f.metric[0].counter.value, double(Get(expected->counters, "sent_pkts")));
    }
    if (f.name.rfind("rxe_port_", 0) == 0) ++hw_families;
  }
  EXPECT_EQ(hw_families, kRxeCounters.size());  // all curated, no generic family
  EXPECT_EQ(resources, 7u);
}

}  // namespace
}  // namespace rxe::collectors::rdma
