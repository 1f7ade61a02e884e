// Transport layer: libnl error mapping, raw message splitting, and the
// request/reply loop against the real kernel (NETLINK_ROUTE works here;
// NETLINK_RDMA does not on the dev/CI kernel).
#include "collectors/netlink_socket.h"

#include <gtest/gtest.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include <climits>
#include <cstring>

#include "collectors/netlink_message.h"
#include "collectors/rdma_netlink_client.h"

namespace rxe::collectors::nl {
namespace {

using namespace std::chrono_literals;

std::vector<uint8_t> ErrorMessage(int err, uint32_t seq = 1) {
  std::vector<uint8_t> b(NLMSG_LENGTH(sizeof(nlmsgerr)));
  auto* h = reinterpret_cast<nlmsghdr*>(b.data());
  h->nlmsg_len = static_cast<uint32_t>(b.size());
  h->nlmsg_type = NLMSG_ERROR;
  h->nlmsg_seq = seq;
  nlmsgerr e{};
  e.error = -err;
  std::memcpy(NLMSG_DATA(h), &e, sizeof(e));
  return b;
}

// RTM_GETLINK for one interface (doit) or all (dump).
NlMsgPtr GetLink(int ifindex, int flags) {
  NlMsgPtr msg(nlmsg_alloc_simple(RTM_GETLINK, flags));
  ifinfomsg ifi{};
  ifi.ifi_index = ifindex;
  EXPECT_EQ(nlmsg_append(msg.get(), &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
  return msg;
}

TEST(NetlinkErrorTest, MapsLibnlCodes) {
  EXPECT_EQ(NlErrorToErrno(-NLE_PROTO_MISMATCH), EPROTONOSUPPORT);
  EXPECT_EQ(NlErrorToErrno(NLE_NODEV), ENODEV);
  EXPECT_EQ(NlErrorToErrno(-NLE_PERM), EPERM);
  EXPECT_EQ(NlErrorToErrno(-NLE_PARSE_ERR), 0);
  Error e = NlError(-NLE_PROTO_MISMATCH, "connect");
  EXPECT_EQ(e.code, ErrorCode::kUnavailable);
  EXPECT_EQ(e.sys_errno, EPROTONOSUPPORT);
  EXPECT_EQ(e.message.rfind("connect: ", 0), 0u) << e.message;
  EXPECT_EQ(NlError(-NLE_PARSE_ERR, "x").code, ErrorCode::kInternal);
}

TEST(SplitMessagesTest, SplitsAndValidates) {
  std::vector<uint8_t> buf = ErrorMessage(0, 7);
  const std::vector<uint8_t> second = ErrorMessage(ENODEV, 8);
  buf.insert(buf.end(), second.begin(), second.end());
  auto msgs = SplitMessages(buf);
  ASSERT_TRUE(msgs.ok()) << msgs.error().message;
  ASSERT_EQ(msgs->size(), 2u);
  EXPECT_EQ((*msgs)[1]->nlmsg_seq, 8u);
  EXPECT_EQ(ControlMessageErrno((*msgs)[0]), 0);
  EXPECT_EQ(ControlMessageErrno((*msgs)[1]), ENODEV);

  EXPECT_TRUE(SplitMessages({}).ok());
  std::vector<uint8_t> trailing = buf;
  trailing.push_back(0);
  EXPECT_FALSE(SplitMessages(trailing).ok());
  std::vector<uint8_t> bad_len = ErrorMessage(0);
  reinterpret_cast<nlmsghdr*>(bad_len.data())->nlmsg_len = 4096;
  EXPECT_EQ(SplitMessages(bad_len).error().code, ErrorCode::kInvalidArgument);
  reinterpret_cast<nlmsghdr*>(bad_len.data())->nlmsg_len = 8;  // < sizeof(nlmsghdr)
  EXPECT_FALSE(SplitMessages(bad_len).ok());
}

TEST(SplitMessagesTest, DoneCarriesDumpError) {
  std::vector<uint8_t> done(NLMSG_LENGTH(sizeof(int)));
  auto* h = reinterpret_cast<nlmsghdr*>(done.data());
  h->nlmsg_len = static_cast<uint32_t>(done.size());
  h->nlmsg_type = NLMSG_DONE;
  EXPECT_EQ(ControlMessageErrno(h), 0);
  const int err = -EINTR;
  std::memcpy(NLMSG_DATA(h), &err, sizeof(err));
  EXPECT_EQ(ControlMessageErrno(h), EINTR);
  h->nlmsg_type = RTM_NEWLINK;
  EXPECT_FALSE(ControlMessageErrno(h).has_value());
}

// Negating INT_MIN was undefined behaviour (UBSan: "negation of -2147483648").
TEST(SplitMessagesTest, ErrorValuesThatAreNoErrnoAreProtocolErrors) {
  std::vector<uint8_t> msg(NLMSG_LENGTH(sizeof(nlmsgerr)));
  auto* h = reinterpret_cast<nlmsghdr*>(msg.data());
  h->nlmsg_len = static_cast<uint32_t>(msg.size());
  for (uint16_t type : {uint16_t{NLMSG_ERROR}, uint16_t{NLMSG_DONE}}) {
    h->nlmsg_type = type;
    for (int value : {INT_MIN, -4096}) {
      std::memcpy(NLMSG_DATA(h), &value, sizeof value);
      EXPECT_EQ(ControlMessageErrno(h), EPROTO) << type << " " << value;
    }
    const int max_errno = -4095;
    std::memcpy(NLMSG_DATA(h), &max_errno, sizeof max_errno);
    EXPECT_EQ(ControlMessageErrno(h), 4095) << type;
  }
  h->nlmsg_type = NLMSG_ERROR;
  const int positive = INT_MAX;
  std::memcpy(NLMSG_DATA(h), &positive, sizeof positive);
  EXPECT_EQ(ControlMessageErrno(h), EPROTO);
  h->nlmsg_type = NLMSG_DONE;
  EXPECT_EQ(ControlMessageErrno(h), 0);  // a positive dump result is no error
}

TEST(NetlinkSocketTest, RouteDoitDumpAndKernelError) {
  auto sock = NetlinkSocket::Connect(NETLINK_ROUTE, 2s);
  ASSERT_TRUE(sock.ok()) << sock.error().message;
  const int lo = static_cast<int>(if_nametoindex("lo"));
  ASSERT_GT(lo, 0);

  // doit without NLM_F_ACK: exactly one reply, nothing left on the socket.
  for (int round = 0; round < 2; ++round) {
    NlMsgPtr req = GetLink(lo, 0);
    auto reply = sock->Transact(req.get());
    ASSERT_TRUE(reply.ok()) << reply.error().message;
    ASSERT_EQ(reply->messages.size(), 1u);
    const auto* h = reinterpret_cast<const nlmsghdr*>(reply->messages[0].data());
    EXPECT_EQ(h->nlmsg_type, RTM_NEWLINK);
    EXPECT_EQ(h->nlmsg_seq, nlmsg_hdr(req.get())->nlmsg_seq);
    EXPECT_EQ(reply->kernel_errno, 0);
  }

  // dump: data messages then NLMSG_DONE, all kept as received.
  auto dump = sock->Transact(GetLink(0, NLM_F_DUMP).get());
  ASSERT_TRUE(dump.ok()) << dump.error().message;
  ASSERT_GE(dump->messages.size(), 2u);
  EXPECT_EQ(reinterpret_cast<const nlmsghdr*>(dump->messages.back().data())->nlmsg_type,
            NLMSG_DONE);
  bool saw_lo = false;
  for (const auto& m : dump->messages) {
    const auto* h = reinterpret_cast<const nlmsghdr*>(m.data());
    EXPECT_EQ(h->nlmsg_len, m.size());
    if (h->nlmsg_type == RTM_NEWLINK) {
      saw_lo |= static_cast<const ifinfomsg*>(NLMSG_DATA(h))->ifi_index == lo;
    }
  }
  EXPECT_TRUE(saw_lo);

  // A kernel error is a value; the socket stays usable.
  auto missing = sock->Transact(GetLink(0x7ffffff0, 0).get());
  ASSERT_TRUE(missing.ok()) << missing.error().message;
  EXPECT_EQ(missing->kernel_errno, ENODEV);
  ASSERT_EQ(missing->messages.size(), 1u);
  EXPECT_EQ(reinterpret_cast<const nlmsghdr*>(missing->messages[0].data())->nlmsg_type,
            NLMSG_ERROR);

  // With NLM_F_ACK the reply ends at the ACK (a stale ACK would break the next doit).
  NlMsgPtr acked = GetLink(lo, NLM_F_ACK);
  auto with_ack = sock->Transact(acked.get());
  ASSERT_TRUE(with_ack.ok()) << with_ack.error().message;
  ASSERT_EQ(with_ack->messages.size(), 2u);
  EXPECT_EQ(ControlMessageErrno(reinterpret_cast<const nlmsghdr*>(with_ack->messages[1].data())),
            0);
  auto again = sock->Transact(GetLink(lo, 0).get());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->messages.size(), 1u);
}

// A request the kernel does not answer (a control type without NLM_F_ACK):
// the receive timeout turns into an error instead of a hung scrape.
TEST(NetlinkSocketTest, NoReplyTimesOut) {
  auto sock = NetlinkSocket::Connect(NETLINK_ROUTE, 100ms);
  ASSERT_TRUE(sock.ok()) << sock.error().message;
  NlMsgPtr noop(nlmsg_alloc_simple(NLMSG_NOOP, 0));
  const auto t0 = std::chrono::steady_clock::now();
  auto reply = sock->Transact(noop.get());
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.error().code, ErrorCode::kDeadlineExceeded) << reply.error().message;
  EXPECT_GE(waited, 90ms);
  EXPECT_LT(waited, 2s);
}

TEST(NetlinkSocketTest, RdmaUnavailableIsNoData) {
  auto sock = NetlinkSocket::Connect(NETLINK_RDMA, 1s);
  if (sock.ok()) GTEST_SKIP() << "this kernel has NETLINK_RDMA";
  EXPECT_EQ(sock.error().sys_errno, EPROTONOSUPPORT) << sock.error().message;
  auto client = rdma::RdmaNetlinkClient::Connect(1s);
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.error().code, ErrorCode::kNoData);
  EXPECT_EQ(client.error().sys_errno, EPROTONOSUPPORT);
  EXPECT_NE(client.error().message.find("RDMA netlink not available"), std::string::npos);
}

}  // namespace
}  // namespace rxe::collectors::nl
