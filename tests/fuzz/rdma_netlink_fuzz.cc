// The RDMA netlink decoder: a kernel reply buffer (one or more messages, as read from the
// socket) split into messages and decoded as each kind of reply. Errors, never crashes.
#include <cstdint>
#include <span>

#include "collectors/netlink_message.h"
#include "collectors/rdma_netlink_decode.h"

using namespace rxe::collectors;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto msgs = nl::SplitMessages(std::span<const uint8_t>(data, size));
  if (!msgs.ok()) return 0;
  (void)rdma::DecodeDeviceList(*msgs);
  for (const nlmsghdr* m : *msgs) {
    (void)nl::ControlMessageErrno(m);
    (void)rdma::DecodeDevice(m);
    (void)rdma::DecodePort(m);
    (void)rdma::DecodeHwStats(m);
    (void)rdma::DecodeResSummary(m);
  }
  return 0;
}
