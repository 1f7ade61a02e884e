// Exporter self-metrics that do not come from a collector: build info and
// the config reload status.
#pragma once

#include <prometheus/metric_family.h>

#include <vector>

namespace rxe::exporter {

struct ReloadStatus {
  bool last_successful = true;
  double last_success_unix_seconds = 0;  // the initial load counts as a success
};

/// rxe_exporter_build_info{version,revision,compiler} 1,
/// rxe_exporter_config_last_reload_successful,
/// rxe_exporter_config_last_reload_success_timestamp_seconds.
void AppendSelfMetrics(const ReloadStatus& reload, std::vector<prometheus::MetricFamily>& out);

}  // namespace rxe::exporter
