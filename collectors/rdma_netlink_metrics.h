// Layer 3 of the RDMA netlink collector: decoded replies -> metric families
// (pure). Hw counters go through the shared AppendHwCounterFamilies so netlink
// and the sysfs fallback produce identical series.
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

#include "collectors/hw_counters.h"
#include "collectors/rdma_netlink_decode.h"

namespace rxe::collectors::rdma {

/// STAT_GET reply -> the shared hw counter input (device name, port, counters).
PortHwCounters ToPortHwCounters(RdmaHwStats stats);

/// rxe_device_resources{device,resource} (gauge), one sample per RES_GET
/// summary entry, in kernel order. Nothing is appended for an empty input.
void AppendResourceFamilies(const std::vector<RdmaResSummary>& devices,
                            std::vector<prometheus::MetricFamily>& out);

}  // namespace rxe::collectors::rdma
