// Reads /sys/class/infiniband/* into plain structs (the I/O half of the sysfs
// collector; sysfs_parse.h is the pure half). Rooted at an injectable sysfs
// root (--path.sysfs) so tests run against tests/fixtures/sys. Layout and
// formats: tech-brief §1 (drivers/infiniband/core/sysfs.c).
//
// Absent attributes (IsAbsentErrno, "N/A (no PMA)") become std::nullopt or
// are left out; other failures of a single attribute are collected in
// DeviceInfo::errors and reading goes on, so one bad file never hides a device.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "collectors/sysfs_parse.h"
#include "common/result.h"

namespace rxe::collectors {

/// One valid (non-zero, typed) entry of ports/N/gids.
struct GidEntry {
  int index = 0;
  Gid gid;
  GidType type = GidType::kRoceV2;
  std::optional<std::string> netdev;  // gid_attrs/ndevs/N
};

using NamedCounters = std::vector<std::pair<std::string, uint64_t>>;  // sorted by name

struct PortInfo {
  int port = 0;
  std::optional<NumberedName> state;       // ports/N/state
  std::optional<NumberedName> phys_state;  // ports/N/phys_state
  std::optional<uint64_t> rate_bytes_per_second;  // ports/N/rate
  std::optional<std::string> link_layer;   // ports/N/link_layer
  std::vector<GidEntry> gids;              // ascending index, at most max_gids
  NamedCounters counters;                  // ports/N/counters/* raw (PMA; ×4 not applied)
  NamedCounters hw_counters;               // ports/N/hw_counters/* without lifespan
  bool hw_counters_read = false;           // false: skipped by options or directory absent
};

struct DeviceInfo {
  std::string name;
  std::optional<NumberedName> node_type;
  std::optional<std::string> node_guid;
  std::optional<std::string> sys_image_guid;
  std::optional<std::string> fw_ver;     // empty string on rxe
  std::optional<std::string> node_desc;
  std::optional<std::string> parent;     // rxe only: the underlying netdev
  std::string driver;                    // device/driver basename, else "rxe"/"unknown"
  std::vector<PortInfo> ports;           // ascending port number
  std::vector<Error> errors;             // attributes that failed to read or parse
};

struct SysfsReadOptions {
  /// Valid GIDs to collect per port. When the device has no `parent`, at
  /// least one is read anyway so the port's netdev can be found.
  int max_gids = 16;
  /// Read ports/N/hw_counters (false when netlink is the only hw source).
  bool hw_counters = true;
  /// (device, port) pairs whose hw_counters are not read (already exported).
  const std::set<std::pair<std::string, int>>* skip_hw_counters = nullptr;
};

/// The GID scan stops after this many consecutive all-zero slots. The kernel
/// fills the lowest free slot first (core/cache.c find_gid), so valid GIDs
/// are packed at the start of the 1024-entry table apart from holes left by
/// removed addresses (refilled by the next address added). Without this bound
/// an rxe port (2-3 GIDs) would cost 1024 open/read/close triples per scrape;
/// with it, about 2 + 16. A GID behind a hole of 16+ removed addresses is
/// missed (only rxe_port_gid_info is affected; netdevs come from `parent`).
inline constexpr int kMaxEmptyGidRun = 16;

class SysfsReader {
 public:
  explicit SysfsReader(std::string sysfs_root);

  /// Device names under <root>/class/infiniband, sorted. The error keeps the
  /// errno (ENOENT: no RDMA devices/ib_core on this host).
  Result<std::vector<std::string>> ListDevices() const;
  /// Reads one device. Fails only if its directory cannot be opened (e.g. it
  /// was just removed: ENOENT).
  Result<DeviceInfo> ReadDevice(const std::string& name, const SysfsReadOptions& options) const;

  const std::string& class_dir() const { return class_dir_; }

 private:
  std::string class_dir_;  // <root>/class/infiniband
};

/// The netdev of a port: the device's `parent` (rxe), else the ndev of the
/// first valid GID that has one.
std::optional<std::string> PortNetdev(const DeviceInfo& device, const PortInfo& port);

}  // namespace rxe::collectors
