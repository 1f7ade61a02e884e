// rtnetlink stats: an RTM_NEWLINK reply (as rtnl_link_get_kernel reads it) parsed by libnl-route
// into an rtnl_link, then our NetdevStatsFromLink and the rxe_netdev_* families.
#include <netlink/msg.h>
#include <netlink/route/link.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "collectors/rtnetlink_stats.h"

using namespace rxe::collectors::rtnl;

namespace {
void OnObject(nl_object* obj, void*) {
  NetdevStats s = NetdevStatsFromLink(reinterpret_cast<rtnl_link*>(obj));
  std::vector<prometheus::MetricFamily> out;
  AppendNetdevFamilies({{"rxe0", 1, s}}, out);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < sizeof(nlmsghdr) || size > 65536) return 0;
  std::vector<uint8_t> buf(data, data + size);
  auto* hdr = reinterpret_cast<nlmsghdr*>(buf.data());
  hdr->nlmsg_type = RTM_NEWLINK;  // the only reply the collector asks for
  hdr->nlmsg_len = static_cast<uint32_t>(size);
  nl_msg* msg = nlmsg_convert(hdr);
  if (msg == nullptr) return 0;
  nlmsg_set_proto(msg, NETLINK_ROUTE);
  (void)nl_msg_parse(msg, OnObject, nullptr);
  nlmsg_free(msg);
  return 0;
}
