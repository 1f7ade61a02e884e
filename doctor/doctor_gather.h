// The I/O half of the doctor: reads the facts the pure checks in
// doctor_checks.h decide on, from an injectable sysfs root (--path.sysfs),
// procfs root and modules directory (tests use tests/fixtures/doctor/).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor_checks.h"

namespace rxe::doctor {

struct GatherPaths {
  std::string sysfs_root = "/sys";
  std::string procfs_root = "/proc";
  std::string modules_root = "/lib/modules";
  std::string kernel_release;  // "" = uname(2)
};

/// <sysfs>/module/rdma_rxe (loaded), else modules.dep / modules.builtin of
/// <modules_root>/<release> mention rdma_rxe.ko (available).
ModuleFact GatherModule(const GatherPaths& paths);
/// Every device under <sysfs>/class/infiniband with its ports, GIDs (up to
/// 32 per port) and the port netdev's MTU and operstate (<sysfs>/class/net).
std::vector<DeviceFact> GatherDevices(const GatherPaths& paths);
/// Netdevs for the `rdma link add` hint: the default-route interface first
/// (<procfs>/net/route), then other non-loopback interfaces that are up.
std::vector<std::string> GatherCandidateNetdevs(const GatherPaths& paths);
/// getrlimit(RLIMIT_MEMLOCK) and CAP_IPC_LOCK from <procfs>/self/status.
MemlockFact GatherMemlock(const GatherPaths& paths);
/// <sysfs>/devices/system/cpu/cpuN/cpufreq/scaling_governor, by CPU number.
std::vector<CpuGovernor> GatherGovernors(const GatherPaths& paths);
/// <procfs>/stat per-CPU times (collectors/host_parse.h).
std::optional<std::vector<CpuTimes>> ReadCpuTimes(const GatherPaths& paths);

/// The local facts of every cheap check (module, devices, candidates,
/// memlock, governors); requests, needs, softirq and peers are left empty.
Facts GatherLocalFacts(const GatherPaths& paths);

}  // namespace rxe::doctor
