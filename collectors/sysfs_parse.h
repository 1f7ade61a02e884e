// Pure parsers for the text of /sys/class/infiniband attributes (no I/O).
// Formats: drivers/infiniband/core/sysfs.c (Linux 6.1/6.12); see
// tech-brief §1. Modelled on prometheus/procfs sysfs/class_infiniband.go
// (parseState, parseRate). Every parser accepts the trailing newline sysfs
// prints and rejects anything else that does not match the kernel format.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rxe::collectors {

/// "<number>: <name>" as printed by state, phys_state and node_type.
struct NumberedName {
  uint32_t number = 0;
  std::string name;
  bool operator==(const NumberedName&) const = default;
};

/// ports/N/state: "4: ACTIVE" -> {4, "ACTIVE"} (1 DOWN .. 5 ACTIVE_DEFER).
Result<NumberedName> ParseState(std::string_view text);
/// ports/N/phys_state: "5: LinkUp", "7: Phy Test" (names may contain spaces).
Result<NumberedName> ParsePhysState(std::string_view text);
/// node_type: "1: CA" (2 switch, 3 router, 4 RNIC, ...).
Result<NumberedName> ParseNodeType(std::string_view text);

/// IB port state number for ACTIVE (ib_port_state IB_PORT_ACTIVE).
inline constexpr uint32_t kPortStateActive = 4;

/// ports/N/rate: "<Gb>[.<frac>] Gb/sec (<W>X<speed>)" -> bytes per second,
/// e.g. "2.5 Gb/sec (1X SDR)" -> 312500000, "100 Gb/sec (4X EDR)" -> 12500000000.
/// Integer arithmetic (no float rounding); 1 Gb/s = 125000000 B/s.
Result<uint64_t> ParseRate(std::string_view text);

/// A counter file ("%llu\n"). std::nullopt for the kernel's "N/A (no PMA)"
/// (device without a Performance Management Agent): absent, not an error.
Result<std::optional<uint64_t>> ParseCounter(std::string_view text);

/// A GID from ports/N/gids/M: "%pI6" = 8 groups of 4 hex digits.
struct Gid {
  std::array<uint8_t, 16> raw{};
  std::string text;  // RFC 5952 form: "fe80::fc:ff:fe00:1", "::ffff:10.77.0.10"
  bool IsZero() const;
};
Result<Gid> ParseGid(std::string_view text);

/// gid_attrs/types/M: "IB/RoCE v1" or "RoCE v2".
enum class GidType { kIbRoceV1, kRoceV2 };
Result<GidType> ParseGidType(std::string_view text);
/// The kernel spelling, used as the gid_type label value.
std::string_view GidTypeName(GidType type);

/// Strips trailing whitespace/newlines (sysfs values end in '\n').
std::string_view TrimSysfsValue(std::string_view text);

}  // namespace rxe::collectors
