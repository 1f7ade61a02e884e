// Layer 2/3 of the rtnetlink collector (pure): an rtnl_link (from libnl-route)
// -> NetdevStats, and NetdevStats of the netdev under each RDMA port -> the
// rxe_netdev_* families of docs/DESIGN.md with labels {device,port,netdev}.
#pragma once

#include <netlink/route/link.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rxe::collectors::rtnl {

struct NetdevStats {
  std::string name;
  uint32_t mtu = 0;
  uint8_t oper_state = 0;  // IF_OPER_* (UNKNOWN 0 ... UP 6); lo reports UNKNOWN
  // 64-bit values (IFLA_STATS64 when the kernel sends it).
  uint64_t rx_bytes = 0, tx_bytes = 0;
  uint64_t rx_packets = 0, tx_packets = 0;
  uint64_t rx_errors = 0, tx_errors = 0;
  uint64_t rx_dropped = 0, tx_dropped = 0;
};

/// Reads name, MTU, operstate and rtnl_link_get_stat() counters. libnl's
/// getters take a non-const pointer but do not modify the link.
NetdevStats NetdevStatsFromLink(rtnl_link* link);

/// One RDMA port and the stats of its netdev.
struct PortNetdevStats {
  std::string device;
  int port = 1;
  NetdevStats netdev;
};

/// Appends rxe_netdev_mtu_bytes, _up (1 iff operstate is UP), _oper_state and
/// the receive/transmit bytes/packets/errors/drops counters. One family per
/// metric, samples in input order; nothing for an empty input.
void AppendNetdevFamilies(const std::vector<PortNetdevStats>& ports,
                          std::vector<prometheus::MetricFamily>& out);

}  // namespace rxe::collectors::rtnl
