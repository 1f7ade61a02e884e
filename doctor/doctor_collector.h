// The daemon's view of the doctor: rxe_doctor_check_status, the cheap doctor
// checks as a collector. It lives here (not in collectors/) because it runs
// the doctor's checks; the exporter appends it to the collectors it builds.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "doctor/doctor_checks.h"

namespace rxe::doctor {

struct DoctorCollectorOptions {
  std::string sysfs_root = "/sys";
  std::string procfs_root = "/proc";
  std::string modules_root = "/lib/modules";
  /// Facts are re-gathered at most this often (scrapes in between reuse them unless the
  /// devices or port states changed).
  std::chrono::milliseconds refresh{std::chrono::seconds(60)};
  MemlockNeed memlock_need;              // zero = the default config's need
  std::vector<MtuRequest> mtu_requests;  // from the modules, if known
};

/// `rxe_doctor_check_status{check, device?, port?}` (0 pass, 1 warn, 2 fail)
/// for the cheap checks (rxe_module, rdma_device, port_state, mtu, gid,
/// shared_netdev, memlock, cpu_governor), re-evaluated at most once a minute, or at
/// once when the RDMA devices or their ports' states change.
/// Costly checks (softirq under load, peers) run only in `rxe_exporter doctor`.
std::unique_ptr<collectors::Collector> NewDoctorCollector(DoctorCollectorOptions options);
/// The daemon's instance: the default options with these roots.
std::unique_ptr<collectors::Collector> NewDoctorCollector(const std::string& sysfs_root,
                                                          const std::string& procfs_root);

}  // namespace rxe::doctor
