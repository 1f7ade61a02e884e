// A Collector reads one counter source at scrape time and returns fresh
// metric families (node_exporter style: no long-lived metric objects, so
// vanished devices vanish from the output).
#pragma once

#include <prometheus/metric_family.h>

#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace rxe::collectors {

/// Which RDMA devices to export (compiled once from config::DeviceFilter).
class DeviceMatcher {
 public:
  DeviceMatcher();  // matches everything
  DeviceMatcher(const std::string& include, const std::string& exclude);
  bool Matches(const std::string& device) const;

 private:
  std::regex include_;
  std::regex exclude_;
  bool has_exclude_ = false;
};

/// Shared state for one scrape; collectors run sequentially in a fixed order
/// (rdma_netlink, sysfs, rtnetlink, host) so later ones can see earlier ones.
struct ScrapeContext {
  DeviceMatcher devices;
  /// (device, port) pairs whose hw counters were already exported (by RDMA
  /// netlink). The sysfs collector exports hw_counters only for the others:
  /// sysfs is the fallback, and a port is never exported twice.
  std::set<std::pair<std::string, int>> hw_counters_exported;
  /// (device, port) -> netdev, filled by sysfs (parent / gid ndevs); used by rtnetlink.
  std::vector<std::pair<std::pair<std::string, int>, std::string>> port_netdevs;
};

class Collector {
 public:
  virtual ~Collector() = default;
  /// Stable collector name used in rxe_exporter_scrape_collector_*{collector=...}.
  virtual std::string_view Name() const = 0;
  /// Appends this source's families to `out`. Returns an error of code
  /// kNoData when the source is absent on this host (not counted as failure).
  virtual Status Collect(ScrapeContext& ctx, std::vector<prometheus::MetricFamily>& out) = 0;
};

}  // namespace rxe::collectors
