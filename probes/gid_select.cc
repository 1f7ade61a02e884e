#include "probes/gid_select.h"

#include <arpa/inet.h>

#include <cstdio>
#include <cstring>

namespace rxe::probes {
namespace {

constexpr uint32_t kPortActive = 4;

std::string IpText(in_addr ip) {
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &ip, buf, sizeof(buf));
  return buf;
}

const GidEntry* FindIndex(const PortGids& port, uint32_t index) {
  for (const GidEntry& e : port.gids) {
    if (e.index == index) return &e;
  }
  return nullptr;
}

ProbeFailure Fail(FailureReason reason, std::string detail) {
  return ProbeFailure{reason, std::move(detail), ""};
}

}  // namespace

Gid Ipv4MappedGid(in_addr ip) {
  Gid gid{};
  gid[10] = 0xff;
  gid[11] = 0xff;
  std::memcpy(&gid[12], &ip.s_addr, 4);  // s_addr is already in network byte order
  return gid;
}

std::string GidToString(const Gid& gid) {
  std::string out;
  char group[8];
  for (size_t i = 0; i < gid.size(); i += 2) {
    std::snprintf(group, sizeof(group), "%s%02x%02x", i == 0 ? "" : ":", gid[i], gid[i + 1]);
    out += group;
  }
  return out;
}

std::string PortStateName(uint32_t state) {
  switch (state) {
    case 1:
      return "DOWN";
    case 2:
      return "INIT";
    case 3:
      return "ARMED";
    case 4:
      return "ACTIVE";
    case 5:
      return "ACTIVE_DEFER";
    default:
      return std::to_string(state);
  }
}

std::optional<uint32_t> SelectGid(const std::vector<GidEntry>& table, in_addr ip) {
  const Gid want = Ipv4MappedGid(ip);
  std::optional<uint32_t> best;
  for (const GidEntry& e : table) {
    if (e.type != GidType::kRoceV2 || e.gid != want) continue;
    if (!best || e.index < *best) best = e.index;
  }
  return best;
}

std::variant<GidChoice, ProbeFailure> ChoosePortAndGid(const std::vector<PortGids>& ports,
                                                       const LocalTarget& target) {
  std::vector<size_t> candidates;
  for (size_t i = 0; i < ports.size(); ++i) {
    if (target.device.empty() || ports[i].device == target.device) candidates.push_back(i);
  }
  if (candidates.empty()) {
    return Fail(FailureReason::kNoDevice, target.device.empty()
                                              ? "no RDMA device found"
                                              : "RDMA device " + target.device + " not found");
  }

  // Ports whose table has ::ffff:<local_ip>; ACTIVE ones first.
  std::optional<GidChoice> by_ip;
  for (size_t i : candidates) {
    std::optional<uint32_t> idx = SelectGid(ports[i].gids, target.local_ip);
    if (!idx) continue;
    const bool better =
        !by_ip || (ports[i].state == kPortActive && ports[by_ip->port_index].state != kPortActive);
    if (better) by_ip = GidChoice{i, *idx};
  }

  GidChoice choice;
  if (target.gid_index) {
    const int want = *target.gid_index;
    if (want < 0)
      return Fail(FailureReason::kNoGid, "gid_index " + std::to_string(want) + " is negative");
    const auto uwant = static_cast<uint32_t>(want);
    std::optional<size_t> port;
    if (by_ip && FindIndex(ports[by_ip->port_index], uwant) != nullptr) {
      port = by_ip->port_index;
    } else {
      for (size_t i : candidates) {
        if (FindIndex(ports[i], uwant) != nullptr) {
          port = i;
          break;
        }
      }
    }
    if (!port) {
      return Fail(FailureReason::kNoGid, "gid_index " + std::to_string(want) +
                                             " is not a valid GID on " +
                                             ports[candidates[0]].device);
    }
    const GidEntry* e = FindIndex(ports[*port], uwant);
    if (e->type != GidType::kRoceV2) {
      return Fail(FailureReason::kNoGid, "gid_index " + std::to_string(want) + " on " +
                                             ports[*port].device + " is not a RoCE v2 GID");
    }
    choice = GidChoice{*port, uwant};
  } else {
    if (!by_ip) {
      std::string where = target.device.empty() ? "any RDMA device" : target.device;
      return Fail(FailureReason::kNoGid,
                  "no RoCE v2 GID for " + IpText(target.local_ip) + " on " + where);
    }
    choice = *by_ip;
  }

  const PortGids& p = ports[choice.port_index];
  if (p.state != kPortActive) {
    return Fail(FailureReason::kNoDevice, p.device + " port " + std::to_string(p.port) +
                                              " is not ACTIVE (state " + PortStateName(p.state) +
                                              ")");
  }
  return choice;
}

}  // namespace rxe::probes
