// Builds the enabled collectors in scrape order. Each constructor lives in
// the file of its source (sysfs_collector.cc, rdma_netlink_collector.cc, ...).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "config/model.h"

namespace rxe::collectors {

/// RDMA netlink (NETLINK_RDMA/nldev): hw counters (STAT_GET, primary source)
/// and per-device resource counts (RES_GET). Marks exported ports in ctx.
std::unique_ptr<Collector> NewRdmaNetlinkCollector(const config::CollectorsConfig& cfg);
/// sysfs under `sysfs_root` (default /sys): device/port info, state, rate,
/// GIDs, counters/ and (fallback) hw_counters/. Fills ctx.port_netdevs.
std::unique_ptr<Collector> NewSysfsCollector(const config::CollectorsConfig& cfg,
                                             const std::string& sysfs_root);
/// rtnetlink: the netdev under each RDMA port (from ctx.port_netdevs).
std::unique_ptr<Collector> NewRtnetlinkCollector(const config::CollectorsConfig& cfg);

/// Host cost of Soft-RoCE (rxe runs in softirq context on the CPU): per-CPU
/// softirq time and NET_RX/NET_TX counts from `procfs_root` (default /proc).
std::unique_ptr<Collector> NewHostCollector(const config::CollectorsConfig& cfg,
                                            const std::string& procfs_root);

/// All enabled collectors in scrape order: rdma_netlink, sysfs, rtnetlink, host.
std::vector<std::unique_ptr<Collector>> MakeCollectors(const config::CollectorsConfig& cfg,
                                                       const std::string& sysfs_root,
                                                       const std::string& procfs_root = "/proc");

}  // namespace rxe::collectors
