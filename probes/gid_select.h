// Device/port/GID selection for a probe session, as pure functions over GID
// tables (the I/O that fills them is in verbs_device.cc). The rule: use the
// RoCE v2 GID ::ffff:<local_ip> (rxe only has RoCE v2 entries; index 0 is the
// reserved fe80:: default GID, IPv4 GIDs usually start at 1 but are scanned,
// never assumed).
#pragma once

#include <netinet/in.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "probes/engine.h"
#include "probes/failure.h"

namespace rxe::probes {

using Gid = std::array<uint8_t, 16>;

/// Same numbering as enum ibv_gid_type.
enum class GidType : uint32_t { kIb = 0, kRoceV1 = 1, kRoceV2 = 2 };

struct GidEntry {
  Gid gid{};
  uint32_t index = 0;
  GidType type = GidType::kRoceV2;
};

/// One port of one device, with its valid GID entries.
struct PortGids {
  std::string device;
  uint32_t port = 1;
  uint32_t state = 4;  // enum ibv_port_state; 4 = ACTIVE
  std::vector<GidEntry> gids;
};

struct GidChoice {
  size_t port_index = 0;  // into the `ports` vector given to ChoosePortAndGid
  uint32_t gid_index = 0;
};

/// ::ffff:a.b.c.d (the IPv4-mapped GID rxe creates for an IPv4 address).
Gid Ipv4MappedGid(in_addr ip);
/// "fe80:0000:..." style text of a GID (8 groups of 4 hex digits).
std::string GidToString(const Gid& gid);
/// "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" or the number.
std::string PortStateName(uint32_t state);

/// The lowest index of a RoCE v2 entry equal to ::ffff:<ip>, if any.
std::optional<uint32_t> SelectGid(const std::vector<GidEntry>& table, in_addr ip);

/// Picks device, port and GID index for `target`:
///  - device override: only ports of that device (none -> kNoDevice);
///  - gid_index override: must be a valid RoCE v2 entry of the chosen port (else kNoGid);
///  - auto: the first port whose table has ::ffff:<local_ip>, preferring ACTIVE ports (none ->
///  kNoGid);
///  - the chosen port must be ACTIVE (else kNoDevice with the state in the detail).
std::variant<GidChoice, ProbeFailure> ChoosePortAndGid(const std::vector<PortGids>& ports,
                                                       const LocalTarget& target);

}  // namespace rxe::probes
