// RDMA netlink (NETLINK_RDMA, client RDMA_NL_NLDEV) requests and a client
// that runs them over one reusable socket and decodes the replies.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "collectors/netlink_socket.h"
#include "collectors/rdma_netlink_decode.h"
#include "common/result.h"

namespace rxe::collectors::rdma {

/// Requests as iproute2 `rdma` builds them (no family header, u32 indexes),
/// without NLM_F_ACK: the socket has auto-ack disabled. Only attributes every
/// nldev kernel knows are sent (STAT_GET parses strictly).
Result<nl::NlMsgPtr> BuildDeviceDumpRequest();                                // CMD_GET, NLM_F_DUMP
Result<nl::NlMsgPtr> BuildPortGetRequest(uint32_t dev_index, uint32_t port);  // PORT_GET doit
Result<nl::NlMsgPtr> BuildStatGetRequest(uint32_t dev_index, uint32_t port);  // STAT_GET doit
Result<nl::NlMsgPtr> BuildResGetRequest(uint32_t dev_index);                  // RES_GET doit

/// What the RDMA netlink collector needs; tests substitute a fake that
/// replays captured messages.
class NldevSource {
 public:
  virtual ~NldevSource() = default;
  virtual Result<std::vector<RdmaDevice>> ListDevices() = 0;
  /// Fresh values (the kernel calls get_hw_stats; no sysfs lifespan cache).
  virtual Result<RdmaHwStats> GetHwStats(uint32_t dev_index, uint32_t port) = 0;
  virtual Result<RdmaResSummary> GetResources(uint32_t dev_index) = 0;
  /// True after a transport failure (send/receive error, timeout): recreate
  /// the source. A kernel error for one device or port (e.g. ENODEV after the
  /// device was removed) leaves it usable.
  virtual bool broken() const = 0;
};

class RdmaNetlinkClient final : public NldevSource {
 public:
  /// Errors: kNoData "RDMA netlink not available" (sys_errno EPROTONOSUPPORT)
  /// on kernels without NETLINK_RDMA; other connect failures as they are.
  static Result<std::unique_ptr<RdmaNetlinkClient>> Connect(
      std::chrono::milliseconds timeout = std::chrono::seconds(2));

  Result<std::vector<RdmaDevice>> ListDevices() override;
  Result<RdmaHwStats> GetHwStats(uint32_t dev_index, uint32_t port) override;
  Result<RdmaResSummary> GetResources(uint32_t dev_index) override;
  Result<RdmaPort> GetPort(uint32_t dev_index, uint32_t port);
  bool broken() const override { return broken_; }

  /// One raw request/reply (used by the capture tool). Kernel errors are in
  /// reply.kernel_errno; transport errors mark the client broken.
  Result<nl::NetlinkReply> Exchange(nl_msg* request);

 private:
  explicit RdmaNetlinkClient(nl::NetlinkSocket sock) : sock_(std::move(sock)) {}
  /// Exchange + kernel error to Error + exactly one data message.
  Result<nl::RawMessage> Doit(Result<nl::NlMsgPtr> request, const std::string& what);

  nl::NetlinkSocket sock_;
  bool broken_ = false;
};

}  // namespace rxe::collectors::rdma
