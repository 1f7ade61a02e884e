#include "collectors/factory.h"

namespace rxe::collectors {

std::vector<std::unique_ptr<Collector>> MakeCollectors(const config::CollectorsConfig& cfg,
                                                       const std::string& sysfs_root,
                                                       const std::string& procfs_root) {
  std::vector<std::unique_ptr<Collector>> out;
  const bool netlink_counters = cfg.hw_counter_source != config::HwCounterSource::kSysfs;
  if (cfg.rdma_netlink) out.push_back(NewRdmaNetlinkCollector(cfg));
  if (cfg.sysfs || !netlink_counters) out.push_back(NewSysfsCollector(cfg, sysfs_root));
  if (cfg.rtnetlink) out.push_back(NewRtnetlinkCollector(cfg));
  if (cfg.host) out.push_back(NewHostCollector(cfg, procfs_root));
  return out;
}

}  // namespace rxe::collectors
