// The "rtnetlink" collector: for each (RDMA port, netdev) in
// ctx.port_netdevs (filled by the sysfs collector), one RTM_GETLINK doit via
// libnl-route's rtnl_link_get_kernel on a socket reused across scrapes.
//
// Why not a link cache refilled per scrape: the cache dumps every link in the
// netns. Measured on the dev machine (libnl 3.7, kernel 6.18; refill+lookup vs
// two rtnl_link_get_kernel, per scrape): 4 links 35 us vs 30 us; 303 links (a
// netns with 150 veth pairs) 2.25 ms vs 39 us.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "collectors/netlink_socket.h"
#include "collectors/rtnetlink_stats.h"
#include "common/result.h"

namespace rxe::collectors::rtnl {

/// A NETLINK_ROUTE socket (libnl auto-ack on: rtnl_link_get_kernel consumes
/// the ACK itself) with a receive timeout.
Result<nl::NlSockPtr> ConnectRoute(std::chrono::milliseconds timeout);

/// Stats of `netdev` from the kernel. nullopt if no such netdev in this netns
/// (ENODEV); errors are transport failures (drop the socket) or a timeout.
Result<std::optional<NetdevStats>> GetNetdevStats(nl_sock* sk, const std::string& netdev);

}  // namespace rxe::collectors::rtnl
