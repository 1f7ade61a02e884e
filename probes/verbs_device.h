// Opens the RDMA device/port/GID a probe session uses (see gid_select.h for
// the selection rule) and small verbs helpers (MTU enum <-> bytes).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <optional>
#include <string>

#include "probes/engine.h"
#include "probes/gid_select.h"
#include "probes/verbs_raii.h"

namespace rxe::probes::verbs {

struct OpenedPort {
  ContextPtr ctx;
  std::string device;
  uint8_t port = 1;
  uint32_t gid_index = 0;
  Gid gid{};
  ibv_device_attr device_attr{};
  ibv_port_attr port_attr{};
};

/// Enumerates devices (all, or `target.device`), reads every port's GID table
/// (ibv_query_gid_table, falling back to ibv_query_gid_ex) and opens the one
/// ChoosePortAndGid() picks. Failures: kNoDevice, kNoGid.
ProbeResult<OpenedPort> OpenPortForTarget(const LocalTarget& target);

/// 256..4096 for IBV_MTU_256..IBV_MTU_4096, 0 otherwise.
uint32_t MtuBytes(int mtu_enum);
/// IBV_MTU_* for exactly 256, 512, 1024, 2048 or 4096 bytes.
std::optional<ibv_mtu> MtuFromBytes(uint32_t bytes);

}  // namespace rxe::probes::verbs
