#include "collectors/rdma_netlink_metrics.h"

#include "collectors/metric_builder.h"

namespace rxe::collectors::rdma {

PortHwCounters ToPortHwCounters(RdmaHwStats stats) {
  PortHwCounters p;
  p.device = std::move(stats.dev_name);
  p.port = static_cast<int>(stats.port);
  p.counters = std::move(stats.counters);
  return p;
}

void AppendResourceFamilies(const std::vector<RdmaResSummary>& devices,
                            std::vector<prometheus::MetricFamily>& out) {
  FamilyBuilder family("rxe_device_resources",
                       "RDMA objects currently allocated on the device, by type (RDMA netlink "
                       "RES_GET summary: qp, cq, mr, pd, ctx = open verbs contexts, cm_id, srq).",
                       prometheus::MetricType::Gauge);
  for (const auto& dev : devices) {
    for (const auto& [name, count] : dev.entries) {
      family.Add({{"device", dev.dev_name}, {"resource", name}}, static_cast<double>(count));
    }
  }
  family.AppendTo(out);
}

}  // namespace rxe::collectors::rdma
