#include "doctor/doctor_gather.h"

#include <sys/resource.h>
#include <sys/utsname.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "collectors/sysfs_reader.h"

namespace rxe::doctor {
namespace {

namespace fs = std::filesystem;
using collectors::Gid;
using collectors::GidType;
using collectors::ParseProcStat;
using collectors::PortNetdev;
using collectors::SysfsReader;
using collectors::SysfsReadOptions;
using collectors::TrimSysfsValue;

std::optional<std::string> ReadText(const std::string& path, size_t max = 1 << 22) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string out;
  char buf[8192];
  while (out.size() < max && in.read(buf, sizeof buf).gcount() > 0) {
    out.append(buf, static_cast<size_t>(in.gcount()));
  }
  if (out.size() > max) out.resize(max);
  return out;
}

std::optional<std::string> ReadValue(const std::string& path) {
  auto t = ReadText(path, 4096);
  if (!t) return std::nullopt;
  return std::string(TrimSysfsValue(*t));
}

std::optional<std::string> Ipv4OfGid(const Gid& g) {
  for (int i = 0; i < 10; ++i) {
    if (g.raw[i] != 0) return std::nullopt;
  }
  if (g.raw[10] != 0xff || g.raw[11] != 0xff) return std::nullopt;
  return std::to_string(g.raw[12]) + "." + std::to_string(g.raw[13]) + "." +
         std::to_string(g.raw[14]) + "." + std::to_string(g.raw[15]);
}

std::string Release(const GatherPaths& p) {
  if (!p.kernel_release.empty()) return p.kernel_release;
  utsname u{};
  return uname(&u) == 0 ? u.release : "";
}

}  // namespace

ModuleFact GatherModule(const GatherPaths& paths) {
  ModuleFact m;
  m.kernel_release = Release(paths);
  std::error_code ec;
  const std::string sys_module = paths.sysfs_root + "/module/rdma_rxe";
  if (fs::exists(sys_module, ec)) {
    m.loaded = m.available = true;
    m.evidence = sys_module + " exists";
    return m;
  }
  const std::string dir = paths.modules_root + "/" + m.kernel_release;
  for (const char* file : {"modules.dep", "modules.builtin"}) {
    auto text = ReadText(dir + "/" + file, size_t{64} << 20);
    if (text && text->find("/rdma_rxe.ko") != std::string::npos) {
      m.available = true;
      m.evidence = std::string("listed in ") + dir + "/" + file;
      return m;
    }
  }
  m.evidence = "not in " + sys_module + " nor " + dir + "/modules.dep";
  return m;
}

std::vector<DeviceFact> GatherDevices(const GatherPaths& paths) {
  std::vector<DeviceFact> out;
  SysfsReader reader(paths.sysfs_root);
  auto names = reader.ListDevices();
  if (!names.ok()) return out;
  SysfsReadOptions opts;
  opts.max_gids = 32;
  opts.hw_counters = false;
  for (const auto& name : *names) {
    auto dev = reader.ReadDevice(name, opts);
    if (!dev.ok()) continue;
    DeviceFact d;
    d.name = dev->name;
    d.driver = dev->driver;
    d.rxe = dev->parent.has_value() || dev->driver == "rxe" || dev->driver == "rdma_rxe";
    for (const auto& port : dev->ports) {
      PortFact p;
      p.port = port.port;
      if (port.state) {
        p.state = port.state->number;
        p.state_name = port.state->name;
      }
      if (port.phys_state) {
        p.phys_state = port.phys_state->number;
        p.phys_state_name = port.phys_state->name;
      }
      p.link_layer = port.link_layer.value_or("");
      p.netdev = PortNetdev(*dev, port).value_or("");
      if (!p.netdev.empty()) {
        const std::string net = paths.sysfs_root + "/class/net/" + p.netdev;
        if (auto mtu = ReadValue(net + "/mtu")) {
          try {
            p.netdev_mtu = static_cast<uint32_t>(std::stoul(*mtu));
          } catch (const std::exception&) {
          }
        }
        p.netdev_operstate = ReadValue(net + "/operstate");
      }
      for (const auto& g : port.gids) {
        GidFact gf;
        gf.index = g.index;
        gf.gid = g.gid.text;
        gf.roce_v2 = g.type == GidType::kRoceV2;
        gf.netdev = g.netdev.value_or("");
        gf.ipv4 = Ipv4OfGid(g.gid);
        p.gids.push_back(std::move(gf));
      }
      d.ports.push_back(std::move(p));
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> GatherCandidateNetdevs(const GatherPaths& paths) {
  std::vector<std::string> out;
  if (auto route = ReadText(paths.procfs_root + "/net/route", 1 << 20)) {
    std::istringstream in(*route);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream f(line);
      std::string iface, dest;
      if (f >> iface >> dest && dest == "00000000" &&
          std::find(out.begin(), out.end(), iface) == out.end()) {
        out.push_back(iface);
      }
    }
  }
  std::vector<std::string> up;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(paths.sysfs_root + "/class/net", ec)) {
    const std::string name = e.path().filename().string();
    if (name == "lo" || std::find(out.begin(), out.end(), name) != out.end()) continue;
    if (ReadValue(e.path().string() + "/operstate").value_or("") == "up") up.push_back(name);
  }
  std::sort(up.begin(), up.end());
  out.insert(out.end(), up.begin(), up.end());
  return out;
}

MemlockFact GatherMemlock(const GatherPaths& paths) {
  MemlockFact m;
  rlimit rl{};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
    m.unlimited = rl.rlim_cur == RLIM_INFINITY;
    m.soft_bytes = m.unlimited ? 0 : static_cast<uint64_t>(rl.rlim_cur);
  }
  if (auto status = ReadText(paths.procfs_root + "/self/status", 1 << 16)) {
    const size_t at = status->find("CapEff:");
    if (at != std::string::npos) {
      try {
        const uint64_t caps = std::stoull(status->substr(at + 7), nullptr, 16);
        m.cap_ipc_lock = (caps >> 14) & 1;  // CAP_IPC_LOCK
      } catch (const std::exception&) {
      }
    }
  }
  return m;
}

std::vector<CpuGovernor> GatherGovernors(const GatherPaths& paths) {
  std::vector<CpuGovernor> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(paths.sysfs_root + "/devices/system/cpu", ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 ||
        name.find_first_not_of("0123456789", 3) != std::string::npos) {
      continue;
    }
    if (auto gov = ReadValue(e.path().string() + "/cpufreq/scaling_governor")) {
      out.push_back({std::stoi(name.substr(3)), *gov});
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.cpu < b.cpu; });
  return out;
}

std::optional<std::vector<CpuTimes>> ReadCpuTimes(const GatherPaths& paths) {
  auto text = ReadText(paths.procfs_root + "/stat", 1 << 20);
  if (!text) return std::nullopt;
  return ParseProcStat(*text);
}

Facts GatherLocalFacts(const GatherPaths& paths) {
  Facts f;
  f.module = GatherModule(paths);
  f.devices = GatherDevices(paths);
  f.candidate_netdevs = GatherCandidateNetdevs(paths);
  f.memlock = GatherMemlock(paths);
  f.governors = GatherGovernors(paths);
  return f;
}

}  // namespace rxe::doctor
