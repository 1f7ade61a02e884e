#include "probes/verbs_device.h"

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "common/log.h"

namespace rxe::probes::verbs {
namespace {

struct OpenDevice {
  ContextPtr ctx;
  std::string name;
  ibv_device_attr attr{};
  std::vector<ibv_port_attr> ports;  // index p-1 for port p
};

GidEntry ToEntry(const ibv_gid_entry& e) {
  GidEntry out;
  std::memcpy(out.gid.data(), e.gid.raw, out.gid.size());
  out.index = e.gid_index;
  out.type = static_cast<GidType>(e.gid_type);
  return out;
}

// All valid GID entries of the device: one ibv_query_gid_table call, or a
// per-index ibv_query_gid_ex scan when the kernel lacks the table ioctl.
std::vector<ibv_gid_entry> QueryGids(const OpenDevice& dev) {
  size_t total = 0;
  for (const ibv_port_attr& pa : dev.ports) total += static_cast<size_t>(pa.gid_tbl_len);
  std::vector<ibv_gid_entry> entries(total);
  if (total == 0) return entries;
  ssize_t n = ibv_query_gid_table(dev.ctx.get(), entries.data(), entries.size(), 0);
  if (n >= 0) {
    entries.resize(static_cast<size_t>(n));
    return entries;
  }
  log::Debug("ibv_query_gid_table failed, scanning with ibv_query_gid_ex",
             {{"device", dev.name}, {"error", std::strerror(static_cast<int>(-n))}});
  entries.clear();
  for (size_t p = 0; p < dev.ports.size(); ++p) {
    for (int i = 0; i < dev.ports[p].gid_tbl_len; ++i) {
      ibv_gid_entry e{};
      if (ibv_query_gid_ex(dev.ctx.get(), static_cast<uint32_t>(p + 1), static_cast<uint32_t>(i),
                           &e, 0) == 0) {
        entries.push_back(e);
      }
    }
  }
  return entries;
}

ProbeFailure NoDevice(std::string detail) {
  return ProbeFailure{FailureReason::kNoDevice, std::move(detail), ""};
}

}  // namespace

uint32_t MtuBytes(int mtu_enum) {
  switch (mtu_enum) {
    case IBV_MTU_256:
      return 256;
    case IBV_MTU_512:
      return 512;
    case IBV_MTU_1024:
      return 1024;
    case IBV_MTU_2048:
      return 2048;
    case IBV_MTU_4096:
      return 4096;
    default:
      return 0;
  }
}

std::optional<ibv_mtu> MtuFromBytes(uint32_t bytes) {
  switch (bytes) {
    case 256:
      return IBV_MTU_256;
    case 512:
      return IBV_MTU_512;
    case 1024:
      return IBV_MTU_1024;
    case 2048:
      return IBV_MTU_2048;
    case 4096:
      return IBV_MTU_4096;
    default:
      return std::nullopt;
  }
}

ProbeResult<OpenedPort> OpenPortForTarget(const LocalTarget& target) {
  int num = 0;
  DeviceListPtr list(ibv_get_device_list(&num));
  if (!list) return NoDevice(std::string("ibv_get_device_list: ") + std::strerror(errno));

  std::vector<OpenDevice> devices;
  std::string open_errors;
  for (int i = 0; i < num; ++i) {
    std::string name = ibv_get_device_name(list.get()[i]);
    if (!target.device.empty() && name != target.device) continue;
    OpenDevice dev;
    dev.name = name;
    dev.ctx.reset(ibv_open_device(list.get()[i]));
    if (!dev.ctx) {
      open_errors += "; open " + name + ": " + std::strerror(errno);
      continue;
    }
    if (int rc = ibv_query_device(dev.ctx.get(), &dev.attr); rc != 0) {
      open_errors += "; query " + name + ": " + std::strerror(rc > 0 ? rc : errno);
      continue;
    }
    for (uint8_t p = 1; p <= dev.attr.phys_port_cnt; ++p) {
      ibv_port_attr pa{};
      if (ibv_query_port(dev.ctx.get(), p, &pa) != 0) pa.state = IBV_PORT_NOP;
      dev.ports.push_back(pa);
    }
    devices.push_back(std::move(dev));
  }
  if (devices.empty()) {
    if (!target.device.empty() && open_errors.empty()) {
      return NoDevice("RDMA device " + target.device + " not found");
    }
    return NoDevice("no usable RDMA device" + open_errors);
  }

  std::vector<PortGids> ports;
  std::vector<size_t> port_device;
  for (size_t d = 0; d < devices.size(); ++d) {
    std::vector<ibv_gid_entry> gids = QueryGids(devices[d]);
    for (size_t p = 0; p < devices[d].ports.size(); ++p) {
      PortGids pg;
      pg.device = devices[d].name;
      pg.port = static_cast<uint32_t>(p + 1);
      pg.state = static_cast<uint32_t>(devices[d].ports[p].state);
      for (const ibv_gid_entry& e : gids) {
        if (e.port_num == pg.port) pg.gids.push_back(ToEntry(e));
      }
      ports.push_back(std::move(pg));
      port_device.push_back(d);
    }
  }

  auto chosen = ChoosePortAndGid(ports, target);
  if (auto* f = std::get_if<ProbeFailure>(&chosen)) return std::move(*f);
  const GidChoice& c = std::get<GidChoice>(chosen);
  OpenDevice& dev = devices[port_device[c.port_index]];
  OpenedPort out;
  out.device = dev.name;
  out.port = static_cast<uint8_t>(ports[c.port_index].port);
  out.gid_index = c.gid_index;
  for (const GidEntry& e : ports[c.port_index].gids) {
    if (e.index == c.gid_index) out.gid = e.gid;
  }
  out.device_attr = dev.attr;
  out.port_attr = dev.ports[out.port - 1];
  out.ctx = std::move(dev.ctx);
  return out;
}

}  // namespace rxe::probes::verbs
