#include "collectors/rdma_netlink_client.h"

#include <linux/netlink.h>
#include <netlink/attr.h>

#include <cerrno>

#include "collectors/netlink_message.h"

namespace rxe::collectors::rdma {
namespace {

Result<nl::NlMsgPtr> NewRequest(int cmd, int flags) {
  nl::NlMsgPtr msg(nlmsg_alloc_simple(NldevType(cmd), flags));
  if (!msg) return Error::FromErrno(ENOMEM, "nlmsg_alloc_simple");
  return msg;
}

Status PutU32(nl_msg* msg, int type, uint32_t value) {
  const int rc = nla_put_u32(msg, type, value);
  if (rc < 0) return nl::NlError(rc, "nla_put_u32");
  return Status::Ok();
}

std::string Where(uint32_t dev_index, int port = -1) {
  std::string s = "device index " + std::to_string(dev_index);
  if (port >= 0) s += " port " + std::to_string(port);
  return s;
}

}  // namespace

Result<nl::NlMsgPtr> BuildDeviceDumpRequest() { return NewRequest(RDMA_NLDEV_CMD_GET, NLM_F_DUMP); }

Result<nl::NlMsgPtr> BuildPortGetRequest(uint32_t dev_index, uint32_t port) {
  auto msg = NewRequest(RDMA_NLDEV_CMD_PORT_GET, 0);
  if (!msg.ok()) return msg;
  RXE_RETURN_IF_ERROR(PutU32(msg->get(), RDMA_NLDEV_ATTR_DEV_INDEX, dev_index));
  RXE_RETURN_IF_ERROR(PutU32(msg->get(), RDMA_NLDEV_ATTR_PORT_INDEX, port));
  return msg;
}

Result<nl::NlMsgPtr> BuildStatGetRequest(uint32_t dev_index, uint32_t port) {
  // Without STAT_RES the kernel runs stat_get_doit_default_counter.
  auto msg = NewRequest(RDMA_NLDEV_CMD_STAT_GET, 0);
  if (!msg.ok()) return msg;
  RXE_RETURN_IF_ERROR(PutU32(msg->get(), RDMA_NLDEV_ATTR_DEV_INDEX, dev_index));
  RXE_RETURN_IF_ERROR(PutU32(msg->get(), RDMA_NLDEV_ATTR_PORT_INDEX, port));
  return msg;
}

Result<nl::NlMsgPtr> BuildResGetRequest(uint32_t dev_index) {
  // iproute2 also sends DRIVER_DETAILS; kernels older than it would reject
  // the unknown attribute, and the default (no driver objects) is what we want.
  auto msg = NewRequest(RDMA_NLDEV_CMD_RES_GET, 0);
  if (!msg.ok()) return msg;
  RXE_RETURN_IF_ERROR(PutU32(msg->get(), RDMA_NLDEV_ATTR_DEV_INDEX, dev_index));
  return msg;
}

Result<std::unique_ptr<RdmaNetlinkClient>> RdmaNetlinkClient::Connect(
    std::chrono::milliseconds timeout) {
  auto sock = nl::NetlinkSocket::Connect(NETLINK_RDMA, timeout);
  if (!sock.ok()) {
    const Error& e = sock.error();
    if (e.sys_errno == EPROTONOSUPPORT) {
      return Error{ErrorCode::kNoData, e.sys_errno, "RDMA netlink not available: " + e.message};
    }
    return e;
  }
  return std::unique_ptr<RdmaNetlinkClient>(new RdmaNetlinkClient(std::move(*sock)));
}

Result<nl::NetlinkReply> RdmaNetlinkClient::Exchange(nl_msg* request) {
  auto reply = sock_.Transact(request);
  if (!reply.ok()) broken_ = true;
  return reply;
}

Result<nl::RawMessage> RdmaNetlinkClient::Doit(Result<nl::NlMsgPtr> request,
                                               const std::string& what) {
  if (!request.ok()) return request.error().Wrap(what);
  auto reply = Exchange(request->get());
  if (!reply.ok()) return reply.error().Wrap(what);
  if (reply->kernel_errno != 0) return Error::FromErrno(reply->kernel_errno, what);
  if (reply->messages.size() != 1) {
    return Error::Make(ErrorCode::kInvalidArgument, what + ": expected one reply message, got " +
                                                        std::to_string(reply->messages.size()));
  }
  return std::move(reply->messages.front());
}

Result<std::vector<RdmaDevice>> RdmaNetlinkClient::ListDevices() {
  auto request = BuildDeviceDumpRequest();
  if (!request.ok()) return request.error();
  auto reply = Exchange(request->get());
  if (!reply.ok()) return reply.error().Wrap("CMD_GET dump");
  if (reply->kernel_errno != 0) return Error::FromErrno(reply->kernel_errno, "CMD_GET dump");
  std::vector<const nlmsghdr*> msgs;
  for (const auto& m : reply->messages) msgs.push_back(reinterpret_cast<const nlmsghdr*>(m.data()));
  return DecodeDeviceList(msgs);
}

Result<RdmaHwStats> RdmaNetlinkClient::GetHwStats(uint32_t dev_index, uint32_t port) {
  const std::string what = "STAT_GET " + Where(dev_index, static_cast<int>(port));
  auto msg = Doit(BuildStatGetRequest(dev_index, port), what);
  if (!msg.ok()) return msg.error();
  return DecodeHwStats(reinterpret_cast<const nlmsghdr*>(msg->data()));
}

Result<RdmaResSummary> RdmaNetlinkClient::GetResources(uint32_t dev_index) {
  auto msg = Doit(BuildResGetRequest(dev_index), "RES_GET " + Where(dev_index));
  if (!msg.ok()) return msg.error();
  return DecodeResSummary(reinterpret_cast<const nlmsghdr*>(msg->data()));
}

Result<RdmaPort> RdmaNetlinkClient::GetPort(uint32_t dev_index, uint32_t port) {
  const std::string what = "PORT_GET " + Where(dev_index, static_cast<int>(port));
  auto msg = Doit(BuildPortGetRequest(dev_index, port), what);
  if (!msg.ok()) return msg.error();
  return DecodePort(reinterpret_cast<const nlmsghdr*>(msg->data()));
}

}  // namespace rxe::collectors::rdma
