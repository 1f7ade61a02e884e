// Device and port checks: rdma_device, port_state, mtu, gid, shared_netdev.
#include "doctor/doctor_checks.h"

#include <algorithm>
#include <map>
#include <set>

namespace rxe::doctor {
namespace {

CheckResult Port(const char* check, const DeviceFact& d, const PortFact& p) {
  CheckResult r;
  r.check = check;
  r.device = d.name;
  r.port = p.port;
  return r;
}

std::string Where(const DeviceFact& d, const PortFact& p) {
  return d.name + "/" + std::to_string(p.port);
}

std::string NetdevText(const PortFact& p) { return p.netdev.empty() ? "<netdev>" : p.netdev; }

}  // namespace

uint32_t DerivedActiveMtu(uint32_t netdev_mtu, bool rxe) {
  const uint32_t overhead = rxe ? 80 : 96;
  const int64_t room = static_cast<int64_t>(netdev_mtu) - overhead;
  for (uint32_t m : {4096u, 2048u, 1024u, 512u, 256u}) {
    if (room >= m) return m;
  }
  return 256;
}

uint32_t NetdevMtuFor(uint32_t roce_mtu, bool rxe) { return roce_mtu + (rxe ? 80 : 96); }

CheckResult CheckRdmaDevice(const std::vector<DeviceFact>& devices,
                            const std::vector<std::string>& candidates) {
  CheckResult r{"rdma_device"};
  if (devices.empty()) {
    const std::string nd = candidates.empty() ? "<netdev>" : candidates.front();
    r.status = CheckStatus::kFail;
    r.evidence = "no RDMA device under /sys/class/infiniband (no rxe device exists)";
    r.fix =
        "create a Soft-RoCE device on the interface that carries RoCE traffic: "
        "sudo rdma link add rxe0 type rxe netdev " +
        nd + " (then check: rdma link show)";
    return r;
  }
  std::string list;
  for (const auto& d : devices) {
    std::string netdevs;
    for (const auto& p : d.ports) {
      if (!p.netdev.empty()) netdevs += (netdevs.empty() ? "" : ",") + p.netdev;
    }
    list += (list.empty() ? "" : "; ") + d.name + " (" + (d.rxe ? "rxe" : d.driver) +
            (netdevs.empty() ? "" : " on " + netdevs) + ")";
  }
  const bool any_rxe =
      std::any_of(devices.begin(), devices.end(), [](const auto& d) { return d.rxe; });
  r.evidence = std::string(any_rxe ? "" : "no rxe device; hardware RDMA only: ") + list;
  return r;
}

CheckResult CheckPortState(const DeviceFact& d, const PortFact& p) {
  CheckResult r = Port("port_state", d, p);
  const std::string nd = p.netdev.empty() ? ""
                                          : ", netdev " + p.netdev + " operstate " +
                                                p.netdev_operstate.value_or("unknown");
  r.evidence = Where(d, p) + " state " + (p.state_name.empty() ? "?" : p.state_name) + " (" +
               std::to_string(p.state) + "), phys_state " +
               (p.phys_state_name.empty() ? "?" : p.phys_state_name) + " (" +
               std::to_string(p.phys_state) + ")" + nd;
  if (p.state == 4 && p.phys_state == 5) return r;
  r.status = CheckStatus::kFail;
  if (d.rxe) {
    r.fix =
        "an rxe port follows its netdev: bring it up and check the link "
        "(sudo ip link set dev " +
        NetdevText(p) + " up; ip link show " + NetdevText(p) +
        "); if the netdev was recreated, recreate rxe: sudo rdma link delete " + d.name +
        "; sudo rdma link add " + d.name + " type rxe netdev " + NetdevText(p);
  } else {
    r.fix = "check the physical link and the netdev: sudo ip link set dev " + NetdevText(p) +
            " up; ethtool " + NetdevText(p) + " (cable, switch port, speed)";
  }
  return r;
}

CheckResult CheckMtu(const DeviceFact& d, const PortFact& p,
                     const std::vector<MtuRequest>& requests) {
  CheckResult r = Port("mtu", d, p);
  if (!p.netdev_mtu) {
    r.status = CheckStatus::kSkip;
    r.evidence = Where(d, p) + ": MTU of netdev " + NetdevText(p) + " unknown";
    return r;
  }
  const uint32_t active = p.active_mtu.value_or(DerivedActiveMtu(*p.netdev_mtu, d.rxe));
  const std::string rule =
      d.rxe ? "largest IB MTU <= netdev MTU - 80" : "largest IB MTU <= netdev MTU - 96";
  r.evidence = "netdev " + NetdevText(p) + " MTU " + std::to_string(*p.netdev_mtu) +
               " -> active RoCE MTU " + std::to_string(active) + " on " + Where(d, p) + " (" +
               (p.active_mtu ? "reported" : rule) + ")";
  const MtuRequest* want = nullptr;
  for (const auto& q : requests) {
    if (want == nullptr || q.bytes > want->bytes) want = &q;
  }
  const std::string jumbo = "enable jumbo frames: sudo ip link set dev " + NetdevText(p) +
                            " mtu 9000 (at least " + std::to_string(NetdevMtuFor(4096, d.rxe)) +
                            " for RoCE MTU 4096) on both hosts and every switch in between";
  if (want != nullptr && want->bytes > active) {
    r.status = CheckStatus::kFail;
    r.evidence += "; " + want->source + " requests MTU " + std::to_string(want->bytes) +
                  " (probes fail: \"Requested mtu is higher than active mtu\")";
    r.fix = jumbo + "; or lower the requested mtu to " + std::to_string(active);
    return r;
  }
  if (want != nullptr) {
    r.evidence += "; requested " + std::to_string(want->bytes) + " (" + want->source + ") fits";
    return r;
  }
  if (active < 4096 && d.rxe) {
    r.status = CheckStatus::kWarn;
    r.evidence +=
        "; Soft-RoCE pays per packet: the tuning study measured 0.40 Gb/s at MTU 1024 "
        "vs 1.16 Gb/s at 4096";
    r.fix = jumbo;
  }
  return r;
}

CheckResult CheckGid(const DeviceFact& d, const PortFact& p,
                     const std::vector<GidIndexRequest>& requests) {
  CheckResult r = Port("gid", d, p);
  std::vector<const GidFact*> v4;
  for (const auto& g : p.gids) {
    if (g.roce_v2 && g.ipv4) v4.push_back(&g);
  }
  if (v4.empty()) {
    r.status = CheckStatus::kFail;
    r.evidence = Where(d, p) + " has no RoCE v2 GID with an IPv4 address (" +
                 std::to_string(p.gids.size()) + " GIDs); netdev " + NetdevText(p) +
                 " has no IPv4 address?";
    r.fix = "give " + NetdevText(p) + " an IPv4 address (sudo ip addr add <addr>/<len> dev " +
            NetdevText(p) + "); the GID ::ffff:<addr> appears automatically (check with show_gids)";
    return r;
  }
  std::string list;
  for (const auto* g : v4) {
    list += (list.empty() ? "" : ", ") + std::string("index ") + std::to_string(g->index) + " = " +
            *g->ipv4 + (g->netdev.empty() ? "" : " on " + g->netdev);
  }
  r.evidence = Where(d, p) + " RoCE v2 IPv4 GIDs: " + list + "; perftest -x " +
               std::to_string(v4.front()->index) + " (gid_index: auto picks it per peer)";
  for (const auto& q : requests) {
    if (!q.device.empty() && q.device != d.name) continue;
    if (std::any_of(v4.begin(), v4.end(), [&](const GidFact* g) { return g->index == q.index; }))
      continue;
    std::string what = "empty";
    for (const auto& g : p.gids) {
      if (g.index == q.index)
        what =
            g.gid + (g.roce_v2 ? " (RoCE v2" : " (RoCE v1") + (g.ipv4 ? ", IPv4)" : ", not IPv4)");
    }
    r.status = CheckStatus::kFail;
    r.evidence += "; " + q.source + " uses gid_index " + std::to_string(q.index) + ": " + what;
    r.fix = "set gid_index: " + std::to_string(v4.front()->index) + " (perftest -x " +
            std::to_string(v4.front()->index) + ") or remove gid_index to select it automatically";
  }
  return r;
}

CheckResult CheckSharedNetdev(const std::vector<DeviceFact>& devices) {
  CheckResult r{"shared_netdev"};
  std::map<std::string, std::set<std::pair<bool, std::string>>> by_netdev;  // netdev -> (rxe?, dev)
  for (const auto& d : devices) {
    for (const auto& p : d.ports) {
      if (!p.netdev.empty()) by_netdev[p.netdev].insert({d.rxe, d.name});
    }
  }
  std::string clash;
  std::string rxe_name, hw_name;
  for (const auto& [nd, devs] : by_netdev) {
    std::string rx, hw;
    for (const auto& [is_rxe, name] : devs) {
      std::string& list = is_rxe ? rx : hw;
      list += (list.empty() ? "" : ",") + name;
    }
    if (rx.empty() || hw.empty()) continue;
    clash += (clash.empty() ? "" : "; ") + nd + ": rxe " + rx + " and hardware " + hw;
    if (rxe_name.empty()) {
      rxe_name = rx.substr(0, rx.find(','));
      hw_name = hw.substr(0, hw.find(','));
    }
  }
  if (clash.empty()) {
    r.evidence = "no netdev carries both an rxe device and a hardware RoCE device";
    return r;
  }
  r.status = CheckStatus::kWarn;
  r.evidence = clash +
               " (the NIC handles RoCE v2 on UDP 4791 itself, so rxe traffic may never "
               "reach rxe, and both devices own the same GIDs)";
  r.fix = "use the hardware device (module device: " + hw_name +
          ") and remove the software one: "
          "sudo rdma link delete " +
          rxe_name;
  return r;
}

}  // namespace rxe::doctor
