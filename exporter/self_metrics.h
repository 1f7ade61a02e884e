// Exporter self-metrics that do not come from a collector: build info and
// the config reload status.
#pragma once

#include <prometheus/metric_family.h>

#include <cstddef>
#include <cstdint>
#include <string>
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

/// One HTTP listener's connection counters (HttpServer::Stats, by its bound address).
struct ListenerStats {
  std::string listener;  // host:port as bound
  uint64_t accepted = 0;
  uint64_t evicted = 0;
  uint64_t rejected = 0;
  uint64_t headers_too_large = 0;
  size_t open = 0;
};

/// rxe_exporter_http_connections_total{listener,outcome="accepted|evicted|rejected"},
/// rxe_exporter_http_open_connections{listener},
/// rxe_exporter_http_headers_too_large_total{listener}: what --web.max-connections and
/// --web.max-header-bytes did (slowloris, idle floods, header floods become visible).
void AppendHttpMetrics(const std::vector<ListenerStats>& listeners,
                       std::vector<prometheus::MetricFamily>& out);

/// rxe_exporter_scrapes_coalesced_total: telemetry requests answered with the render another
/// request had in flight (exporter/shared_render.h).
void AppendRenderMetrics(uint64_t coalesced, std::vector<prometheus::MetricFamily>& out);

}  // namespace rxe::exporter
