// Host checks (rxe_module, memlock, cpu_governor, softirq) and RunChecks.
#include <algorithm>
#include <cstdio>
#include <map>

#include "config/units.h"
#include "doctor/doctor_checks.h"

namespace rxe::doctor {
namespace {

std::string Percent(double ratio) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", ratio * 100);
  return buf;
}

/// "0-3,6" from sorted CPU numbers.
std::string CpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]) +
           (j > i ? "-" + std::to_string(cpus[j]) : "");
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string_view StatusName(CheckStatus s) {
  switch (s) {
    case CheckStatus::kPass:
      return "pass";
    case CheckStatus::kWarn:
      return "warn";
    case CheckStatus::kFail:
      return "fail";
    case CheckStatus::kSkip:
      return "skip";
  }
  return "fail";
}

std::string Bytes(uint64_t n) {
  return config::FormatBytes(n) + (n % 1024 == 0 && n ? "" : " bytes");
}

CheckResult CheckRxeModule(const ModuleFact& m, const std::vector<DeviceFact>& devices) {
  CheckResult r{"rxe_module"};
  const bool rxe = std::any_of(devices.begin(), devices.end(), [](const auto& d) { return d.rxe; });
  if (m.loaded || rxe) {
    r.evidence = "rdma_rxe is loaded" + (m.evidence.empty() ? "" : " (" + m.evidence + ")");
    return r;
  }
  if (m.available) {
    r.evidence = "rdma_rxe is available but not loaded (" + m.evidence +
                 "); `rdma link add ... type rxe` loads it";
    return r;
  }
  if (!devices.empty()) {
    r.status = CheckStatus::kSkip;
    r.evidence = "rdma_rxe not found for kernel " + m.kernel_release + "; hardware RDMA present";
    return r;
  }
  r.status = CheckStatus::kFail;
  r.evidence = "rdma_rxe is neither loaded nor in the modules of kernel " + m.kernel_release +
               (m.evidence.empty() ? "" : " (" + m.evidence + ")");
  r.fix = "install the kernel's extra modules (Ubuntu: sudo apt install linux-modules-extra-" +
          m.kernel_release +
          "; Debian's linux-image ships it) or a kernel with CONFIG_RDMA_RXE, "
          "then: sudo modprobe rdma_rxe";
  return r;
}

CheckResult CheckMemlock(const MemlockFact& m, const MemlockNeed& need) {
  CheckResult r{"memlock"};
  const std::string limit = m.unlimited ? "unlimited" : Bytes(m.soft_bytes);
  const std::string needs = "needs " + Bytes(need.largest_buffer_bytes) + " per probe, up to " +
                            Bytes(need.concurrent_bytes) + " at once" +
                            (need.detail.empty() ? "" : " (" + need.detail + ")");
  r.evidence = "RLIMIT_MEMLOCK " + limit + "; " + needs;
  if (m.cap_ipc_lock) {
    r.evidence += "; CAP_IPC_LOCK is effective, so the limit does not apply";
    return r;
  }
  if (m.unlimited || m.soft_bytes >= need.concurrent_bytes) return r;
  const std::string fix =
      "raise the locked-memory limit: LimitMEMLOCK=256M in the systemd unit "
      "(the shipped unit has it), or ulimit -l unlimited / a memlock line in "
      "/etc/security/limits.conf for interactive runs";
  r.fix = fix;
  if (m.soft_bytes < need.largest_buffer_bytes) {
    r.status = CheckStatus::kFail;
    r.evidence += "; memory registration (ibv_reg_mr) fails with ENOMEM";
  } else {
    r.status = CheckStatus::kWarn;
    r.evidence += "; concurrent probes/responder sessions may fail to register memory";
  }
  return r;
}

CheckResult CheckGovernor(const std::vector<CpuGovernor>& governors) {
  CheckResult r{"cpu_governor"};
  if (governors.empty()) {
    r.evidence = "no cpufreq scaling_governor (VM or fixed frequency): nothing to tune";
    return r;
  }
  std::map<std::string, std::vector<int>> by;
  for (const auto& g : governors) by[g.governor].push_back(g.cpu);
  std::string list;
  for (auto& [gov, cpus] : by) {
    std::sort(cpus.begin(), cpus.end());
    list += (list.empty() ? "" : "; ") + std::string("CPU ") + CpuList(cpus) + ": " + gov;
  }
  r.evidence = "scaling_governor " + list;
  if (by.size() == 1 && by.count("performance")) return r;
  r.status = CheckStatus::kWarn;
  r.evidence += " (frequency scaling adds latency jitter to Soft-RoCE, which runs on the CPU)";
  r.fix =
      "sudo cpupower frequency-set -g performance (or echo performance | sudo tee "
      "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)";
  return r;
}

CheckResult CheckSoftirq(const SoftirqSample& s) {
  CheckResult r{"softirq"};
  std::vector<std::pair<double, int>> ratios;  // (ratio, cpu)
  for (const auto& a : s.after) {
    for (const auto& b : s.before) {
      if (b.cpu != a.cpu || a.total_ticks <= b.total_ticks) continue;
      const double dt = static_cast<double>(a.total_ticks - b.total_ticks);
      const double ds = a.softirq_ticks >= b.softirq_ticks
                            ? static_cast<double>(a.softirq_ticks - b.softirq_ticks)
                            : 0;
      ratios.push_back({ds / dt, a.cpu});
    }
  }
  const std::string during = s.during.empty() ? "the sample interval" : s.during;
  if (ratios.empty()) {
    r.status = CheckStatus::kSkip;
    r.evidence = "no CPU time advanced during " + during;
    return r;
  }
  std::sort(ratios.begin(), ratios.end(), [](auto& x, auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  const auto [top, cpu] = ratios.front();
  r.evidence = "busiest CPU " + std::to_string(cpu) + " spent " + Percent(top) +
               " in softirq during " + during +
               (ratios.size() > 1 ? "; next CPU " + std::to_string(ratios[1].second) + " " +
                                        Percent(ratios[1].first)
                                  : "; 1 CPU");
  if (top < kHotSoftirqRatio) return r;
  r.status = CheckStatus::kWarn;
  r.evidence += ": a hot core (rxe's transport runs in softirq, so this core caps bandwidth)";
  r.fix =
      "move other load off CPU " + std::to_string(cpu) +
      ", spread receive processing "
      "(RPS: echo <cpumask> | sudo tee /sys/class/net/<netdev>/queues/rx-0/rps_cpus; irqbalance), "
      "and watch it with mpstat -P ALL 1 while probing";
  return r;
}

std::vector<CheckResult> RunChecks(const Facts& f) {
  std::vector<CheckResult> out;
  out.push_back(CheckRxeModule(f.module, f.devices));
  out.push_back(CheckRdmaDevice(f.devices, f.candidate_netdevs));
  for (const auto& d : f.devices) {
    for (const auto& p : d.ports) {
      out.push_back(CheckPortState(d, p));
      if (p.link_layer != "Ethernet") continue;  // InfiniBand ports: no RoCE MTU/GID rules
      out.push_back(CheckMtu(d, p, f.mtu_requests));
      out.push_back(CheckGid(d, p, f.gid_requests));
    }
  }
  out.push_back(CheckSharedNetdev(f.devices));
  if (f.memlock) out.push_back(CheckMemlock(*f.memlock, f.memlock_need));
  if (f.governors) out.push_back(CheckGovernor(*f.governors));
  if (f.softirq) out.push_back(CheckSoftirq(*f.softirq));
  for (const auto& p : f.peers) {
    out.push_back(CheckPeerControl(p));
    out.push_back(CheckPeerRdma(p));
  }
  return out;
}

CheckStatus Worst(const std::vector<CheckResult>& results) {
  CheckStatus worst = CheckStatus::kPass;
  for (const auto& r : results) {
    if (r.status != CheckStatus::kSkip && static_cast<int>(r.status) > static_cast<int>(worst)) {
      worst = r.status;
    }
  }
  return worst;
}

int ExitStatus(CheckStatus worst) {
  return worst == CheckStatus::kSkip ? 0 : static_cast<int>(worst);
}

}  // namespace rxe::doctor
