// Maps RDMA hw counters (rxe's hw_counters, any driver's STAT_GET entries)
// to metric families. Shared by the RDMA netlink and sysfs collectors so both
// sources produce identical series. Known rxe names get curated names and
// operator-facing HELP (docs/DESIGN.md); unknown names are never dropped and
// go to rxe_port_hw_stat_total{counter="<name>"}.
#pragma once

#include <prometheus/metric_family.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rxe::collectors {

struct PortHwCounters {
  std::string device;
  int port = 1;
  std::vector<std::pair<std::string, uint64_t>> counters;  // kernel name -> value
};

struct HwCounterInfo {
  std::string_view kernel_name;
  std::string_view metric;  // full metric name
  std::string_view help;
};

/// The curated table (rxe counters); nullptr for unknown names.
const HwCounterInfo* FindHwCounter(std::string_view kernel_name);
const std::vector<HwCounterInfo>& KnownHwCounters();

/// Appends one family per metric name (sorted by metric name, stable output).
void AppendHwCounterFamilies(const std::vector<PortHwCounters>& ports,
                             std::vector<prometheus::MetricFamily>& out);

}  // namespace rxe::collectors
