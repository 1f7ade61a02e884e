#include "collectors/rtnetlink_stats.h"

#include <linux/if.h>

#include "collectors/metric_builder.h"

namespace rxe::collectors::rtnl {
namespace {

using prometheus::MetricType;

struct Spec {
  const char* name;
  const char* help;
  MetricType type;
  double (*value)(const NetdevStats&);
};

const Spec kSpecs[] = {
    {"rxe_netdev_mtu_bytes", "MTU of the netdev under the RDMA port (rxe active MTU follows it).",
     MetricType::Gauge, [](const NetdevStats& s) { return double(s.mtu); }},
    {"rxe_netdev_up", "1 if the netdev's operational state is UP (RDMA port ACTIVE needs it).",
     MetricType::Gauge,
     [](const NetdevStats& s) { return s.oper_state == IF_OPER_UP ? 1.0 : 0.0; }},
    {"rxe_netdev_oper_state",
     "Operational state of the netdev (IF_OPER_*: 0 unknown, 2 down, 3 lowerlayerdown, 5 dormant, "
     "6 up).",
     MetricType::Gauge, [](const NetdevStats& s) { return double(s.oper_state); }},
    {"rxe_netdev_receive_bytes_total",
     "Bytes received by the netdev (all traffic; RoCE to another host included, same-device "
     "rxe loopback not).",
     MetricType::Counter, [](const NetdevStats& s) { return double(s.rx_bytes); }},
    {"rxe_netdev_transmit_bytes_total",
     "Bytes sent by the netdev (all traffic; RoCE to another host included, same-device rxe "
     "loopback not).",
     MetricType::Counter, [](const NetdevStats& s) { return double(s.tx_bytes); }},
    {"rxe_netdev_receive_packets_total", "Packets received by the netdev.", MetricType::Counter,
     [](const NetdevStats& s) { return double(s.rx_packets); }},
    {"rxe_netdev_transmit_packets_total", "Packets sent by the netdev.", MetricType::Counter,
     [](const NetdevStats& s) { return double(s.tx_packets); }},
    {"rxe_netdev_receive_errors_total", "Receive errors reported by the netdev.",
     MetricType::Counter, [](const NetdevStats& s) { return double(s.rx_errors); }},
    {"rxe_netdev_transmit_errors_total", "Transmit errors reported by the netdev.",
     MetricType::Counter, [](const NetdevStats& s) { return double(s.tx_errors); }},
    {"rxe_netdev_receive_drops_total",
     "Received packets dropped by the netdev (e.g. no buffer); RoCE drops inside rxe are not "
     "counted here.",
     MetricType::Counter, [](const NetdevStats& s) { return double(s.rx_dropped); }},
    {"rxe_netdev_transmit_drops_total", "Packets the netdev dropped on transmit.",
     MetricType::Counter, [](const NetdevStats& s) { return double(s.tx_dropped); }},
};

}  // namespace

NetdevStats NetdevStatsFromLink(rtnl_link* link) {
  NetdevStats s;
  if (const char* name = rtnl_link_get_name(link)) s.name = name;
  s.mtu = rtnl_link_get_mtu(link);
  s.oper_state = rtnl_link_get_operstate(link);
  s.rx_bytes = rtnl_link_get_stat(link, RTNL_LINK_RX_BYTES);
  s.tx_bytes = rtnl_link_get_stat(link, RTNL_LINK_TX_BYTES);
  s.rx_packets = rtnl_link_get_stat(link, RTNL_LINK_RX_PACKETS);
  s.tx_packets = rtnl_link_get_stat(link, RTNL_LINK_TX_PACKETS);
  s.rx_errors = rtnl_link_get_stat(link, RTNL_LINK_RX_ERRORS);
  s.tx_errors = rtnl_link_get_stat(link, RTNL_LINK_TX_ERRORS);
  s.rx_dropped = rtnl_link_get_stat(link, RTNL_LINK_RX_DROPPED);
  s.tx_dropped = rtnl_link_get_stat(link, RTNL_LINK_TX_DROPPED);
  return s;
}

void AppendNetdevFamilies(const std::vector<PortNetdevStats>& ports,
                          std::vector<prometheus::MetricFamily>& out) {
  if (ports.empty()) return;
  for (const Spec& spec : kSpecs) {
    FamilyBuilder family(spec.name, spec.help, spec.type);
    for (const auto& p : ports) {
      family.Add(
          {{"device", p.device}, {"port", std::to_string(p.port)}, {"netdev", p.netdev.name}},
          spec.value(p.netdev));
    }
    family.AppendTo(out);
  }
}

}  // namespace rxe::collectors::rtnl
