// `rxe_exporter doctor` and the daemon's rxe_doctor_check_status metric:
// the checks an operator walks through on a Soft-RoCE/RoCE host, each a PURE
// decision over recorded facts (gathered by doctor_gather.h, or by the doctor
// command for peers), returning pass/warn/fail with the evidence and the fix.
// Check names (stable; the `check` label): rxe_module, rdma_device,
// port_state, mtu, gid, shared_netdev, memlock, cpu_governor, softirq,
// peer_control, peer_rdma. docs/doctor.md documents each one.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/host_parse.h"
#include "config/model.h"

namespace rxe::doctor {

using collectors::CpuTimes;  // /proc/stat per-CPU times (collectors/host_parse.h)

/// Metric values: pass 0, warn 1, fail 2. kSkip (not applicable / could not
/// run) counts as pass for the exit status and is not exported as a metric.
enum class CheckStatus { kPass = 0, kWarn = 1, kFail = 2, kSkip = 3 };
std::string_view StatusName(CheckStatus s);  // "pass", "warn", "fail", "skip"

struct CheckResult {
  std::string check;   // one of the names above
  std::string device;  // per-port checks: RDMA device ("" otherwise)
  int port = 0;        // per-port checks: port number (0 otherwise)
  std::string peer;    // peer checks: peer name
  CheckStatus status = CheckStatus::kPass;
  std::string evidence;  // what was observed
  std::string fix;       // what to do (empty for pass/skip)
};

// ---- Facts ----------------------------------------------------------------

struct GidFact {
  int index = 0;
  std::string gid;  // RFC 5952 text
  bool roce_v2 = false;
  std::string netdev;               // gid_attrs/ndevs/N
  std::optional<std::string> ipv4;  // a.b.c.d for ::ffff:a.b.c.d
};

struct PortFact {
  int port = 1;
  uint32_t state = 0;  // 4 = ACTIVE
  std::string state_name;
  uint32_t phys_state = 0;  // 5 = LinkUp
  std::string phys_state_name;
  std::string link_layer;  // "Ethernet" (RoCE) or "InfiniBand"
  std::string netdev;      // "" = unknown
  std::optional<uint32_t> netdev_mtu;
  std::optional<std::string> netdev_operstate;  // "up", "down", ...
  std::optional<uint32_t> active_mtu;  // bytes when known (verbs); else derived from netdev MTU
  std::vector<GidFact> gids;
};

struct DeviceFact {
  std::string name;
  std::string driver;  // "rxe", "mlx5_core", ...
  bool rxe = false;
  std::vector<PortFact> ports;
};

struct ModuleFact {
  bool loaded = false;     // <sysfs>/module/rdma_rxe exists
  bool available = false;  // in modules.dep / modules.builtin of the running kernel
  std::string kernel_release;
  std::string evidence;  // where it was found (or looked)
};

struct MemlockFact {
  bool unlimited = false;
  uint64_t soft_bytes = 0;
  bool cap_ipc_lock = false;  // CapEff bit 14: registration ignores the limit
};

/// Registered memory the configured probes and responder may pin at once.
struct MemlockNeed {
  uint64_t largest_buffer_bytes = 0;  // one probe session's MR (2 x size, 64-byte rounded)
  uint64_t concurrent_bytes = 0;      // max_concurrent probes + max_sessions responder sessions
  std::string detail;                 // how it was computed
};
MemlockNeed MemlockNeedFor(const config::Config& cfg);

struct CpuGovernor {
  int cpu = 0;
  std::string governor;  // scaling_governor
};

struct SoftirqSample {
  std::vector<CpuTimes> before, after;  // /proc/stat around the load
  std::string during;                   // "a 2 s write_bw probe to b", "" = idle interval
};

/// A peer check: the control TCP connection, then a tiny RDMA exchange.
struct PeerFact {
  std::string name, address;
  uint16_t port = 19792;
  enum class Tcp { kOk, kRefused, kTimeout, kNoRoute, kOther } tcp = Tcp::kOk;
  std::string tcp_detail;
  bool rdma_attempted = false;
  bool rdma_ok = false;
  std::string rdma_reason;  // probes FailureReasonName ("timeout", "wc_error", ...)
  std::string rdma_detail;
  std::string wc_status;     // "IBV_WC_RETRY_EXC_ERR" / "transport retry counter exceeded"
  std::string rdma_summary;  // on success: "write_lat, 20 iterations, median 31.2 us"
};

struct MtuRequest {
  uint32_t bytes = 0;
  std::string source;  // "module bw_jumbo" or "--mtu"
};

struct GidIndexRequest {
  int index = 0;
  std::string device;  // "" = any device
  std::string source;  // "module lat"
};

struct Facts {
  ModuleFact module;
  std::vector<DeviceFact> devices;
  std::vector<std::string> candidate_netdevs;  // for the `rdma link add` fix
  std::vector<MtuRequest> mtu_requests;
  std::vector<GidIndexRequest> gid_requests;
  std::optional<MemlockFact> memlock;
  MemlockNeed memlock_need;
  std::optional<std::vector<CpuGovernor>> governors;  // nullopt = not gathered
  std::optional<SoftirqSample> softirq;
  std::vector<PeerFact> peers;
};

// ---- Decisions (pure) -------------------------------------------------------

/// rxe active MTU: the largest IB MTU <= netdev MTU - 80 (RXE_MAX_HDR_LENGTH),
/// at least 256. Hardware RoCE (iboe_get_mtu) subtracts 96 instead.
uint32_t DerivedActiveMtu(uint32_t netdev_mtu, bool rxe);
/// Smallest netdev MTU giving `roce_mtu` (rxe: +80, hardware: +96).
uint32_t NetdevMtuFor(uint32_t roce_mtu, bool rxe);

CheckResult CheckRxeModule(const ModuleFact& m, const std::vector<DeviceFact>& devices);
CheckResult CheckRdmaDevice(const std::vector<DeviceFact>& devices,
                            const std::vector<std::string>& candidate_netdevs);
CheckResult CheckPortState(const DeviceFact& d, const PortFact& p);
CheckResult CheckMtu(const DeviceFact& d, const PortFact& p,
                     const std::vector<MtuRequest>& requests);
CheckResult CheckGid(const DeviceFact& d, const PortFact& p,
                     const std::vector<GidIndexRequest>& requests);
CheckResult CheckSharedNetdev(const std::vector<DeviceFact>& devices);
CheckResult CheckMemlock(const MemlockFact& m, const MemlockNeed& need);
CheckResult CheckGovernor(const std::vector<CpuGovernor>& governors);
/// Warns when one CPU spent >= kHotSoftirqRatio of its time in softirq.
inline constexpr double kHotSoftirqRatio = 0.5;
CheckResult CheckSoftirq(const SoftirqSample& s);
CheckResult CheckPeerControl(const PeerFact& p);
CheckResult CheckPeerRdma(const PeerFact& p);

/// Every applicable check in a fixed order: host, then per device/port, then peers.
std::vector<CheckResult> RunChecks(const Facts& facts);
/// The worst status (kSkip counts as kPass).
CheckStatus Worst(const std::vector<CheckResult>& results);
/// Exit status of `rxe_exporter doctor`: 0 pass, 1 warn, 2 fail.
int ExitStatus(CheckStatus worst);

/// "64KiB"-style text of a byte count for evidence strings.
std::string Bytes(uint64_t n);

}  // namespace rxe::doctor

