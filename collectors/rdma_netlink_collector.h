// The "rdma_netlink" collector: device list (CMD_GET dump), hw counters per
// port (STAT_GET doit) and resource counts (RES_GET doit). NewRdmaNetlinkCollector
// (factory.h) uses the kernel; the overload here takes a source factory so
// tests can replay captured messages through the whole pipeline.
#pragma once

#include <functional>
#include <memory>

#include "collectors/collector.h"
#include "collectors/rdma_netlink_client.h"
#include "config/model.h"

namespace rxe::collectors {

using NldevSourceFactory = std::function<Result<std::unique_ptr<rdma::NldevSource>>()>;

/// The source is created on the first Collect, reused across scrapes and
/// recreated after a transport failure. Collect is serialised by a mutex.
std::unique_ptr<Collector> NewRdmaNetlinkCollector(const config::CollectorsConfig& cfg,
                                                   NldevSourceFactory factory);

}  // namespace rxe::collectors
