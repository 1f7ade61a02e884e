#include "collectors/rdma_netlink_decode.h"

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <array>
#include <cstdio>

#include "collectors/netlink_socket.h"

namespace rxe::collectors::rdma {
namespace {

using Attrs = std::array<nlattr*, kMaxAttr + 1>;

// Types as the kernel puts them (nldev_policy in core/nldev.c). NLA_STRING:
// libnl checks the trailing NUL the kernel always sends.
const nla_policy* Policy() {
  static const auto policy = [] {
    std::array<nla_policy, kMaxAttr + 1> p{};
    p[RDMA_NLDEV_ATTR_DEV_INDEX].type = NLA_U32;
    p[RDMA_NLDEV_ATTR_DEV_NAME].type = NLA_STRING;
    p[RDMA_NLDEV_ATTR_PORT_INDEX].type = NLA_U32;
    p[RDMA_NLDEV_ATTR_CAP_FLAGS].type = NLA_U64;
    p[RDMA_NLDEV_ATTR_FW_VERSION].type = NLA_STRING;
    p[RDMA_NLDEV_ATTR_NODE_GUID].type = NLA_U64;
    p[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID].type = NLA_U64;
    p[RDMA_NLDEV_ATTR_PORT_STATE].type = NLA_U8;
    p[RDMA_NLDEV_ATTR_PORT_PHYS_STATE].type = NLA_U8;
    p[RDMA_NLDEV_ATTR_DEV_NODE_TYPE].type = NLA_U8;
    p[RDMA_NLDEV_ATTR_RES_SUMMARY].type = NLA_NESTED;
    p[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY].type = NLA_NESTED;
    p[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME].type = NLA_STRING;
    p[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR].type = NLA_U64;
    p[RDMA_NLDEV_ATTR_NDEV_INDEX].type = NLA_U32;
    p[RDMA_NLDEV_ATTR_NDEV_NAME].type = NLA_STRING;
    p[RDMA_NLDEV_ATTR_DEV_PROTOCOL].type = NLA_STRING;
    p[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS].type = NLA_NESTED;
    p[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY].type = NLA_NESTED;
    p[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME].type = NLA_STRING;
    p[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE].type = NLA_U64;
    p[RDMA_NLDEV_ATTR_DEV_DIM].type = NLA_U8;
    return p;
  }();
  return policy.data();
}

Error Invalid(const std::string& what, const std::string& detail) {
  return Error::Make(ErrorCode::kInvalidArgument, "rdma netlink " + what + ": " + detail);
}

// Checks the type and parses the top-level attributes. libnl's parse API is
// not const-correct; it only reads the message.
// `alt_cmd`: a second accepted type (see DecodePort).
Result<Attrs> ParseTop(const nlmsghdr* nlh, int cmd, const std::string& what, int alt_cmd = -1) {
  if (nlh->nlmsg_type != NldevType(cmd) && (alt_cmd < 0 || nlh->nlmsg_type != NldevType(alt_cmd))) {
    return Invalid(what, "unexpected nlmsg_type " + std::to_string(nlh->nlmsg_type) + " (want " +
                             std::to_string(NldevType(cmd)) + ")");
  }
  Attrs tb{};
  const int rc = nlmsg_parse(const_cast<nlmsghdr*>(nlh), 0, tb.data(), kMaxAttr, Policy());
  if (rc < 0) return Invalid(what, nl::NlError(rc, "parse").message);
  if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME]) {
    return Invalid(what, "missing DEV_INDEX or DEV_NAME");
  }
  return tb;
}

// Walks NEST { ENTRY { NAME(string), VALUE(u64) } ... } (STAT_HWCOUNTERS and
// RES_SUMMARY have this shape). Foreign attributes (e.g. PAD) are skipped.
Status DecodeNamedValues(nlattr* nest, int entry_type, int name_type, int value_type,
                         const std::string& what,
                         std::vector<std::pair<std::string, uint64_t>>& out) {
  nlattr* pos = nullptr;
  int rem = 0;
  nla_for_each_nested(pos, nest, rem) {
    if (nla_type(pos) != entry_type) continue;
    Attrs etb{};
    const int rc = nla_parse_nested(etb.data(), kMaxAttr, pos, Policy());
    if (rc < 0) return Invalid(what, nl::NlError(rc, "parse entry").message);
    if (!etb[name_type] || !etb[value_type]) return Invalid(what, "entry without name or value");
    out.emplace_back(nla_get_string(etb[name_type]), nla_get_u64(etb[value_type]));
  }
  return Status::Ok();
}

std::string GetString(const Attrs& tb, int type) {
  return tb[type] ? std::string(nla_get_string(tb[type])) : std::string();
}

}  // namespace

Result<RdmaDevice> DecodeDevice(const nlmsghdr* nlh) {
  auto tb = ParseTop(nlh, RDMA_NLDEV_CMD_GET, "CMD_GET");
  if (!tb.ok()) return tb.error();
  const Attrs& a = *tb;
  if (!a[RDMA_NLDEV_ATTR_PORT_INDEX]) return Invalid("CMD_GET", "missing PORT_INDEX (port count)");
  RdmaDevice d;
  d.index = nla_get_u32(a[RDMA_NLDEV_ATTR_DEV_INDEX]);
  d.name = GetString(a, RDMA_NLDEV_ATTR_DEV_NAME);
  d.port_count = nla_get_u32(a[RDMA_NLDEV_ATTR_PORT_INDEX]);
  if (a[RDMA_NLDEV_ATTR_CAP_FLAGS]) d.cap_flags = nla_get_u64(a[RDMA_NLDEV_ATTR_CAP_FLAGS]);
  d.fw_version = GetString(a, RDMA_NLDEV_ATTR_FW_VERSION);
  if (a[RDMA_NLDEV_ATTR_NODE_GUID]) d.node_guid = nla_get_u64(a[RDMA_NLDEV_ATTR_NODE_GUID]);
  if (a[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID]) {
    d.sys_image_guid = nla_get_u64(a[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID]);
  }
  if (a[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]) d.node_type = nla_get_u8(a[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]);
  d.protocol = GetString(a, RDMA_NLDEV_ATTR_DEV_PROTOCOL);
  return d;
}

Result<RdmaPort> DecodePort(const nlmsghdr* nlh) {
  // The PORT_GET doit reply carries type CMD_GET (nldev_port_get_doit, seen in
  // the 6.1 capture); the PORT_GET dump uses PORT_GET. Accept both.
  auto tb = ParseTop(nlh, RDMA_NLDEV_CMD_PORT_GET, "PORT_GET", RDMA_NLDEV_CMD_GET);
  if (!tb.ok()) return tb.error();
  const Attrs& a = *tb;
  if (!a[RDMA_NLDEV_ATTR_PORT_INDEX]) return Invalid("PORT_GET", "missing PORT_INDEX");
  RdmaPort p;
  p.dev_index = nla_get_u32(a[RDMA_NLDEV_ATTR_DEV_INDEX]);
  p.dev_name = GetString(a, RDMA_NLDEV_ATTR_DEV_NAME);
  p.port = nla_get_u32(a[RDMA_NLDEV_ATTR_PORT_INDEX]);
  if (a[RDMA_NLDEV_ATTR_PORT_STATE]) p.state = nla_get_u8(a[RDMA_NLDEV_ATTR_PORT_STATE]);
  if (a[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]) {
    p.phys_state = nla_get_u8(a[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]);
  }
  if (a[RDMA_NLDEV_ATTR_NDEV_INDEX]) p.netdev_index = nla_get_u32(a[RDMA_NLDEV_ATTR_NDEV_INDEX]);
  p.netdev_name = GetString(a, RDMA_NLDEV_ATTR_NDEV_NAME);
  return p;
}

Result<RdmaHwStats> DecodeHwStats(const nlmsghdr* nlh) {
  auto tb = ParseTop(nlh, RDMA_NLDEV_CMD_STAT_GET, "STAT_GET");
  if (!tb.ok()) return tb.error();
  const Attrs& a = *tb;
  if (!a[RDMA_NLDEV_ATTR_PORT_INDEX]) return Invalid("STAT_GET", "missing PORT_INDEX");
  RdmaHwStats s;
  s.dev_index = nla_get_u32(a[RDMA_NLDEV_ATTR_DEV_INDEX]);
  s.dev_name = GetString(a, RDMA_NLDEV_ATTR_DEV_NAME);
  s.port = nla_get_u32(a[RDMA_NLDEV_ATTR_PORT_INDEX]);
  // No HWCOUNTERS nest: every counter is disabled; an empty list, not an error.
  if (nlattr* nest = a[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]) {
    RXE_RETURN_IF_ERROR(DecodeNamedValues(
        nest, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
        RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, "STAT_GET", s.counters));
  }
  return s;
}

Result<RdmaResSummary> DecodeResSummary(const nlmsghdr* nlh) {
  auto tb = ParseTop(nlh, RDMA_NLDEV_CMD_RES_GET, "RES_GET");
  if (!tb.ok()) return tb.error();
  const Attrs& a = *tb;
  RdmaResSummary r;
  r.dev_index = nla_get_u32(a[RDMA_NLDEV_ATTR_DEV_INDEX]);
  r.dev_name = GetString(a, RDMA_NLDEV_ATTR_DEV_NAME);
  if (nlattr* nest = a[RDMA_NLDEV_ATTR_RES_SUMMARY]) {
    RXE_RETURN_IF_ERROR(DecodeNamedValues(
        nest, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME,
        RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, "RES_GET", r.entries));
  }
  return r;
}

Result<std::vector<RdmaDevice>> DecodeDeviceList(const std::vector<const nlmsghdr*>& msgs) {
  std::vector<RdmaDevice> out;
  for (const nlmsghdr* nlh : msgs) {
    if (nlh->nlmsg_type < NLMSG_MIN_TYPE) continue;
    auto d = DecodeDevice(nlh);
    if (!d.ok()) return d.error();
    out.push_back(std::move(*d));
  }
  return out;
}

std::string FormatGuid(uint64_t guid) {
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x", static_cast<unsigned>(guid >> 48) & 0xffff,
                static_cast<unsigned>(guid >> 32) & 0xffff,
                static_cast<unsigned>(guid >> 16) & 0xffff, static_cast<unsigned>(guid) & 0xffff);
  return buf;
}

}  // namespace rxe::collectors::rdma
