// rtnetlink: the pure mapping (fake stats, a libnl rtnl_link built in
// memory) and the real kernel here (`lo`).
#include "collectors/rtnetlink_collector.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "collectors/factory.h"
#include "collectors/rtnetlink_stats.h"

namespace rxe::collectors::rtnl {
namespace {

using namespace std::chrono_literals;

const prometheus::MetricFamily* Find(const std::vector<prometheus::MetricFamily>& fams,
                                     const std::string& name) {
  for (const auto& f : fams) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

double Value(const prometheus::ClientMetric& m, prometheus::MetricType t) {
  return t == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
}

TEST(RtnetlinkStatsTest, FamiliesFromFakeStats) {
  NetdevStats s{.name = "veth0",
                .mtu = 9000,
                .oper_state = IF_OPER_UP,
                .rx_bytes = 1ULL << 40,
                .tx_bytes = 2,
                .rx_packets = 3,
                .tx_packets = 4,
                .rx_errors = 5,
                .tx_errors = 6,
                .rx_dropped = 7,
                .tx_dropped = 8};
  std::vector<prometheus::MetricFamily> out;
  AppendNetdevFamilies({{"rxe0", 1, s}}, out);
  ASSERT_EQ(out.size(), 11u);
  const std::vector<std::pair<std::string, double>> want = {
      {"rxe_netdev_mtu_bytes", 9000},
      {"rxe_netdev_up", 1},
      {"rxe_netdev_oper_state", 6},
      {"rxe_netdev_receive_bytes_total", double(1ULL << 40)},
      {"rxe_netdev_transmit_bytes_total", 2},
      {"rxe_netdev_receive_packets_total", 3},
      {"rxe_netdev_transmit_packets_total", 4},
      {"rxe_netdev_receive_errors_total", 5},
      {"rxe_netdev_transmit_errors_total", 6},
      {"rxe_netdev_receive_drops_total", 7},
      {"rxe_netdev_transmit_drops_total", 8}};
  for (const auto& [name, value] : want) {
    const auto* f = Find(out, name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->type, name.ends_with("_total") ? prometheus::MetricType::Counter
                                                : prometheus::MetricType::Gauge)
        << name;
    ASSERT_EQ(f->metric.size(), 1u);
    EXPECT_EQ(Value(f->metric[0], f->type), value) << name;
    ASSERT_EQ(f->metric[0].label.size(), 3u);
    EXPECT_EQ(f->metric[0].label[0].name, "device");
    EXPECT_EQ(f->metric[0].label[0].value, "rxe0");
    EXPECT_EQ(f->metric[0].label[1].value, "1");
    EXPECT_EQ(f->metric[0].label[2].name, "netdev");
    EXPECT_EQ(f->metric[0].label[2].value, "veth0");
  }
  s.oper_state = IF_OPER_DOWN;
  out.clear();
  AppendNetdevFamilies({{"rxe0", 1, s}}, out);
  EXPECT_EQ(Find(out, "rxe_netdev_up")->metric[0].gauge.value, 0);
  out.clear();
  AppendNetdevFamilies({}, out);
  EXPECT_TRUE(out.empty());
}

TEST(RtnetlinkStatsTest, FromInMemoryLink) {
  nl::RtnlLinkPtr link(rtnl_link_alloc());
  rtnl_link_set_name(link.get(), "veth0");
  rtnl_link_set_mtu(link.get(), 1500);
  rtnl_link_set_operstate(link.get(), IF_OPER_UP);
  ASSERT_EQ(rtnl_link_set_stat(link.get(), RTNL_LINK_RX_BYTES, 5'000'000'000ULL), 0);
  ASSERT_EQ(rtnl_link_set_stat(link.get(), RTNL_LINK_TX_DROPPED, 9), 0);
  NetdevStats s = NetdevStatsFromLink(link.get());
  EXPECT_EQ(s.name, "veth0");
  EXPECT_EQ(s.mtu, 1500u);
  EXPECT_EQ(s.oper_state, IF_OPER_UP);
  EXPECT_EQ(s.rx_bytes, 5'000'000'000ULL);  // 64-bit, beyond IFLA_STATS' u32
  EXPECT_EQ(s.tx_dropped, 9u);
  EXPECT_EQ(s.tx_bytes, 0u);
}

TEST(RtnetlinkKernelTest, LoopbackAndMissingNetdev) {
  auto sk = ConnectRoute(2s);
  ASSERT_TRUE(sk.ok()) << sk.error().message;
  auto lo = GetNetdevStats(sk->get(), "lo");
  ASSERT_TRUE(lo.ok()) << lo.error().message;
  ASSERT_TRUE(lo->has_value());
  EXPECT_EQ((*lo)->name, "lo");
  EXPECT_GE((*lo)->mtu, 1500u);
  auto missing = GetNetdevStats(sk->get(), "rxe-nosuchdev");
  ASSERT_TRUE(missing.ok()) << missing.error().message;
  EXPECT_FALSE(missing->has_value());
  // The socket is still in sync after the error.
  auto again = GetNetdevStats(sk->get(), "lo");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(again->has_value());
}

// Sends UDP datagrams over lo so its counters move.
void SendOnLoopback(int n, size_t size) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);  // discard; nobody listens, lo still counts the packet
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::vector<char> buf(size, 'x');
  for (int i = 0; i < n; ++i) {
    sendto(fd, buf.data(), buf.size(), 0, reinterpret_cast<sockaddr*>(&to), sizeof(to));
  }
  close(fd);
}

TEST(RtnetlinkCollectorTest, CollectsLoopbackAndCountersMove) {
  auto c = NewRtnetlinkCollector(config::CollectorsConfig{});
  EXPECT_EQ(c->Name(), "rtnetlink");
  ScrapeContext ctx;
  ctx.port_netdevs = {{{"rxe0", 1}, "lo"}, {{"rxe1", 1}, "lo"}, {{"rxe2", 1}, "nosuchdev0"}};
  std::vector<prometheus::MetricFamily> before;
  Status st = c->Collect(ctx, before);
  ASSERT_TRUE(st.ok()) << st.error().message;
  ASSERT_EQ(before.size(), 11u);
  const auto* rx0 = Find(before, "rxe_netdev_receive_bytes_total");
  ASSERT_EQ(rx0->metric.size(), 2u);  // the missing netdev has no series
  EXPECT_EQ(Find(before, "rxe_netdev_oper_state")->metric[0].gauge.value, IF_OPER_UNKNOWN);

  SendOnLoopback(10, 1000);
  std::vector<prometheus::MetricFamily> after;
  ASSERT_TRUE(c->Collect(ctx, after).ok());
  const double rx_delta = Find(after, "rxe_netdev_receive_bytes_total")->metric[0].counter.value -
                          rx0->metric[0].counter.value;
  const double tx_pkts = Find(after, "rxe_netdev_transmit_packets_total")->metric[0].counter.value -
                         Find(before, "rxe_netdev_transmit_packets_total")->metric[0].counter.value;
  EXPECT_GE(rx_delta, 10 * 1000);  // payload plus headers
  EXPECT_GE(tx_pkts, 10);

  // Device filter applies; no netdevs -> no families and no socket needed.
  ctx.devices = DeviceMatcher("mlx.*", "");
  std::vector<prometheus::MetricFamily> none;
  ASSERT_TRUE(c->Collect(ctx, none).ok());
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace rxe::collectors::rtnl
