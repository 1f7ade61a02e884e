// Decoders and request builders with hand-built messages (nlmsg_alloc_simple
// + nla_put, shaped like core/nldev.c replies). Captured kernel replies are
// tested in rdma_netlink_fixture_test.cc.
#include "collectors/rdma_netlink_decode.h"

#include <gtest/gtest.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "collectors/netlink_socket.h"
#include "collectors/rdma_netlink_client.h"

namespace rxe::collectors::rdma {
namespace {

using nl::NlMsgPtr;

NlMsgPtr Reply(int cmd, uint32_t index = 3, const char* name = "rxe0") {
  NlMsgPtr m(nlmsg_alloc_simple(NldevType(cmd), NLM_F_MULTI));
  if (index) nla_put_u32(m.get(), RDMA_NLDEV_ATTR_DEV_INDEX, index);
  if (name) nla_put_string(m.get(), RDMA_NLDEV_ATTR_DEV_NAME, name);
  return m;
}

// NEST { ENTRY { NAME, VALUE } ... } with the kernel's pad attributes before
// each u64 (nla_put_u64_64bit) and NLA_F_NESTED as nla_nest_start sets it.
void PutEntries(nl_msg* m, int nest, int entry, int name, int value,
                const std::vector<std::pair<std::string, uint64_t>>& entries, bool nested_flag) {
  const int flag = nested_flag ? NLA_F_NESTED : 0;
  nlattr* outer = nla_nest_start(m, nest | flag);
  for (const auto& [n, v] : entries) {
    nlattr* e = nla_nest_start(m, entry | flag);
    nla_put_string(m, name, n.c_str());
    nla_put(m, RDMA_NLDEV_ATTR_PAD, 0, nullptr);
    nla_put_u64(m, value, v);
    nla_nest_end(m, e);
  }
  nla_nest_end(m, outer);
}

TEST(RdmaNetlinkDecodeTest, Device) {
  NlMsgPtr m = Reply(RDMA_NLDEV_CMD_GET);
  nla_put_u32(m.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  nla_put_u64(m.get(), RDMA_NLDEV_ATTR_CAP_FLAGS, 0x1234);
  nla_put_u64(m.get(), RDMA_NLDEV_ATTR_NODE_GUID, 0x00fc00fffe000001ULL);
  nla_put_u64(m.get(), RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, 0x00fc00fffe000001ULL);
  nla_put_u8(m.get(), RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1);
  nla_put_u8(m.get(), RDMA_NLDEV_ATTR_DEV_DIM, 0);
  nla_put_string(m.get(), RDMA_NLDEV_ATTR_DEV_PROTOCOL, "roce");
  nla_put_string(m.get(), 120, "attribute from a newer kernel");  // above kMaxAttr: skipped
  auto d = DecodeDevice(nlmsg_hdr(m.get()));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->index, 3u);
  EXPECT_EQ(d->name, "rxe0");
  EXPECT_EQ(d->port_count, 1u);
  EXPECT_EQ(d->cap_flags, 0x1234u);
  EXPECT_EQ(FormatGuid(d->node_guid), "00fc:00ff:fe00:0001");
  EXPECT_EQ(d->node_type, 1);
  EXPECT_EQ(d->protocol, "roce");
  EXPECT_EQ(d->fw_version, "");  // rxe: omitted
}

TEST(RdmaNetlinkDecodeTest, DeviceErrors) {
  NlMsgPtr no_ports = Reply(RDMA_NLDEV_CMD_GET);
  EXPECT_FALSE(DecodeDevice(nlmsg_hdr(no_ports.get())).ok());
  NlMsgPtr no_name = Reply(RDMA_NLDEV_CMD_GET, 3, nullptr);
  nla_put_u32(no_name.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  EXPECT_EQ(DecodeDevice(nlmsg_hdr(no_name.get())).error().code, ErrorCode::kInvalidArgument);
  NlMsgPtr wrong_type = Reply(RDMA_NLDEV_CMD_STAT_GET);
  nla_put_u32(wrong_type.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  auto e = DecodeDevice(nlmsg_hdr(wrong_type.get()));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("nlmsg_type 5137"), std::string::npos) << e.error().message;
  // Policy: a string without its NUL and a short u32 are rejected.
  NlMsgPtr bad_string = Reply(RDMA_NLDEV_CMD_GET, 3, nullptr);
  nla_put(bad_string.get(), RDMA_NLDEV_ATTR_DEV_NAME, 4, "rxe0");
  nla_put_u32(bad_string.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  EXPECT_FALSE(DecodeDevice(nlmsg_hdr(bad_string.get())).ok());
  NlMsgPtr short_u32 = Reply(RDMA_NLDEV_CMD_GET);
  nla_put_u16(short_u32.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  EXPECT_FALSE(DecodeDevice(nlmsg_hdr(short_u32.get())).ok());
}

TEST(RdmaNetlinkDecodeTest, HwStats) {
  for (bool flag : {true, false}) {
    NlMsgPtr m = Reply(RDMA_NLDEV_CMD_STAT_GET);
    nla_put_u32(m.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
    PutEntries(m.get(), RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY,
               RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
               RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE,
               {{"sent_pkts", 113328}, {"rcvd_pkts", 113327}, {"new_counter", 1ULL << 40}}, flag);
    auto s = DecodeHwStats(nlmsg_hdr(m.get()));
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->dev_index, 3u);
    EXPECT_EQ(s->dev_name, "rxe0");
    EXPECT_EQ(s->port, 1u);
    ASSERT_EQ(s->counters.size(), 3u);
    EXPECT_EQ(s->counters[0], (std::pair<std::string, uint64_t>{"sent_pkts", 113328}));
    EXPECT_EQ(s->counters[2].second, 1ULL << 40);
  }
  NlMsgPtr empty = Reply(RDMA_NLDEV_CMD_STAT_GET);
  nla_put_u32(empty.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  auto s = DecodeHwStats(nlmsg_hdr(empty.get()));
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->counters.empty());
}

TEST(RdmaNetlinkDecodeTest, HwStatsEntryWithoutValueFails) {
  NlMsgPtr m = Reply(RDMA_NLDEV_CMD_STAT_GET);
  nla_put_u32(m.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  nlattr* outer = nla_nest_start(m.get(), RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
  nlattr* e = nla_nest_start(m.get(), RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
  nla_put_string(m.get(), RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "sent_pkts");
  nla_nest_end(m.get(), e);
  nla_nest_end(m.get(), outer);
  EXPECT_FALSE(DecodeHwStats(nlmsg_hdr(m.get())).ok());
}

TEST(RdmaNetlinkDecodeTest, ResSummaryAndPort) {
  NlMsgPtr m = Reply(RDMA_NLDEV_CMD_RES_GET);
  PutEntries(m.get(), RDMA_NLDEV_ATTR_RES_SUMMARY, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY,
             RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR,
             {{"pd", 1}, {"cq", 2}, {"qp", 1}, {"cm_id", 0}, {"mr", 0}, {"ctx", 0}, {"srq", 0}},
             false);  // nla_nest_start_noflag in the kernel
  auto r = DecodeResSummary(nlmsg_hdr(m.get()));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->entries.size(), 7u);
  EXPECT_EQ(r->entries[1], (std::pair<std::string, uint64_t>{"cq", 2}));

  NlMsgPtr p = Reply(RDMA_NLDEV_CMD_PORT_GET);
  nla_put_u32(p.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  nla_put_u8(p.get(), RDMA_NLDEV_ATTR_PORT_STATE, 4);
  nla_put_u8(p.get(), RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 5);
  nla_put_u32(p.get(), RDMA_NLDEV_ATTR_NDEV_INDEX, 7);
  nla_put_string(p.get(), RDMA_NLDEV_ATTR_NDEV_NAME, "veth0");
  auto port = DecodePort(nlmsg_hdr(p.get()));
  ASSERT_TRUE(port.ok()) << port.error().message;
  EXPECT_EQ(port->state, 4);
  EXPECT_EQ(port->phys_state, 5);
  EXPECT_EQ(port->netdev_index, 7u);
  EXPECT_EQ(port->netdev_name, "veth0");
}

TEST(RdmaNetlinkDecodeTest, DeviceListSkipsDone) {
  NlMsgPtr a = Reply(RDMA_NLDEV_CMD_GET, 1, "rxe0");
  nla_put_u32(a.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  NlMsgPtr b = Reply(RDMA_NLDEV_CMD_GET, 2, "rxe1");
  nla_put_u32(b.get(), RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  NlMsgPtr done(nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI));
  auto list = DecodeDeviceList({nlmsg_hdr(a.get()), nlmsg_hdr(b.get()), nlmsg_hdr(done.get())});
  ASSERT_TRUE(list.ok()) << list.error().message;
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[1].name, "rxe1");
  EXPECT_EQ((*list)[1].index, 2u);
}

// Requests as the kernel parses them: type, flags, exactly the u32 attributes.
TEST(RdmaNetlinkRequestTest, Shapes) {
  auto stat = BuildStatGetRequest(3, 1);
  ASSERT_TRUE(stat.ok());
  const nlmsghdr* h = nlmsg_hdr(stat->get());
  EXPECT_EQ(h->nlmsg_type, 5137);
  EXPECT_EQ(h->nlmsg_len, 32u);  // 16 header + 2 x 8 (u32 attributes)
  EXPECT_EQ(h->nlmsg_flags, 0);  // NLM_F_REQUEST is added at send; never NLM_F_ACK
  nlattr* tb[RDMA_NLDEV_ATTR_MAX] = {};
  ASSERT_EQ(nlmsg_parse(const_cast<nlmsghdr*>(h), 0, tb, RDMA_NLDEV_ATTR_MAX - 1, nullptr), 0);
  EXPECT_EQ(nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 3u);
  EXPECT_EQ(nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]), 1u);

  auto res = BuildResGetRequest(3);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(nlmsg_hdr(res->get())->nlmsg_type, 5129);
  EXPECT_EQ(nlmsg_hdr(res->get())->nlmsg_len, 24u);  // DEV_INDEX only, no DRIVER_DETAILS
  auto dump = BuildDeviceDumpRequest();
  ASSERT_TRUE(dump.ok());
  EXPECT_EQ(nlmsg_hdr(dump->get())->nlmsg_type, 5121);
  EXPECT_EQ(nlmsg_hdr(dump->get())->nlmsg_flags, NLM_F_DUMP);
  EXPECT_EQ(nlmsg_hdr(dump->get())->nlmsg_len, 16u);
  auto port = BuildPortGetRequest(3, 1);
  ASSERT_TRUE(port.ok());
  EXPECT_EQ(nlmsg_hdr(port->get())->nlmsg_type, 5125);
}

TEST(RdmaNetlinkDecodeTest, FormatGuid) {
  EXPECT_EQ(FormatGuid(0), "0000:0000:0000:0000");
  EXPECT_EQ(FormatGuid(0x0123456789abcdefULL), "0123:4567:89ab:cdef");
}

}  // namespace
}  // namespace rxe::collectors::rdma
