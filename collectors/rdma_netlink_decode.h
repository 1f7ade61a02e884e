// Layer 2 of the RDMA netlink collector: pure decoders from one nldev reply
// message (nlmsghdr + attributes, as the kernel sent it) to plain structs,
// validated against a static nla_policy (like iproute2 rdma/ and rdma-core
// util/rdma_nl.c). No sockets here; tests feed captured bytes.
//
// Kernel side: drivers/infiniband/core/nldev.c (fill_dev_info, fill_port_info,
// stat_get_doit_default_counter, fill_res_info).
#pragma once

#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace rxe::collectors::rdma {

/// nlmsg_type of an nldev command: RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd).
constexpr uint16_t NldevType(int cmd) { return RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd); }

/// Attribute numbers are kernel ABI (new ones are only appended), so the
/// installed linux-libc-dev header is enough for everything we decode. Numbers
/// it lacks are defined here; an enum cannot be tested with #ifdef.
/// RES_GET's DRIVER_DETAILS (u8) exists in 6.1.192+ kernels but not in the
/// 6.1.187 header. Documented only: we never send attributes a kernel might
/// not know (strict nlmsg_parse in some handlers rejects them).
inline constexpr int kAttrDriverDetails = 97;

/// Highest attribute number in the decoder's policy. nla_parse skips
/// attributes above it, so replies from newer kernels still decode.
inline constexpr int kMaxAttr = RDMA_NLDEV_ATTR_MAX - 1;

/// CMD_GET reply (one per device in the dump).
struct RdmaDevice {
  uint32_t index = 0;       // ib_core device index (DEV_INDEX); not exposed in sysfs
  std::string name;         // "rxe0"
  uint32_t port_count = 0;  // PORT_INDEX in CMD_GET replies = rdma_end_port()
  uint64_t cap_flags = 0;
  std::string fw_version;  // omitted by the kernel when empty (rxe)
  uint64_t node_guid = 0;  // host order; format with FormatGuid
  uint64_t sys_image_guid = 0;
  uint8_t node_type = 0;  // RDMA_NODE_IB_CA = 1
  std::string protocol;   // DEV_PROTOCOL: "roce" for rxe
};

/// PORT_GET reply.
struct RdmaPort {
  uint32_t dev_index = 0;
  std::string dev_name;
  uint32_t port = 0;
  uint8_t state = 0;                     // IB port state, 4 = ACTIVE
  uint8_t phys_state = 0;                // 5 = LinkUp
  std::optional<uint32_t> netdev_index;  // only if the netdev is in our netns
  std::string netdev_name;
};

/// STAT_GET doit reply (default counter of a port): hw counters in kernel order.
struct RdmaHwStats {
  uint32_t dev_index = 0;
  std::string dev_name;
  uint32_t port = 0;
  std::vector<std::pair<std::string, uint64_t>> counters;
};

/// RES_GET reply: current count per resource type (pd, cq, qp, cm_id, mr, ctx, srq).
struct RdmaResSummary {
  uint32_t dev_index = 0;
  std::string dev_name;
  std::vector<std::pair<std::string, uint64_t>> entries;
};

/// Each decoder checks nlmsg_type, parses against the policy and requires the
/// attributes it documents. Errors have code kInvalidArgument.
Result<RdmaDevice> DecodeDevice(const nlmsghdr* nlh);
Result<RdmaPort> DecodePort(const nlmsghdr* nlh);
Result<RdmaHwStats> DecodeHwStats(const nlmsghdr* nlh);
Result<RdmaResSummary> DecodeResSummary(const nlmsghdr* nlh);

/// Decodes all CMD_GET messages of a dump, skipping control messages
/// (NLMSG_DONE). Messages are typically from nl::SplitMessages.
Result<std::vector<RdmaDevice>> DecodeDeviceList(const std::vector<const nlmsghdr*>& msgs);

/// "%04x:%04x:%04x:%04x", the sysfs node_guid format ("00fc:00ff:fe00:0001").
std::string FormatGuid(uint64_t guid);

}  // namespace rxe::collectors::rdma
