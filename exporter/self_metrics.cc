#include "exporter/self_metrics.h"

#include "collectors/metric_builder.h"
#include "exporter/build_info.h"

namespace rxe::exporter {

using collectors::FamilyBuilder;
using prometheus::MetricType;

void AppendSelfMetrics(const ReloadStatus& reload, std::vector<prometheus::MetricFamily>& out) {
  FamilyBuilder("rxe_exporter_build_info",
                "A metric with a constant '1' value labeled by version, revision and compiler "
                "from which rxe_exporter was built.",
                MetricType::Gauge)
      .Add({{"version", Version()}, {"revision", Revision()}, {"compiler", Compiler()}}, 1)
      .AppendTo(out);
  FamilyBuilder("rxe_exporter_config_last_reload_successful",
                "Whether the last configuration reload attempt was successful.", MetricType::Gauge)
      .Add({}, reload.last_successful ? 1 : 0)
      .AppendTo(out);
  FamilyBuilder("rxe_exporter_config_last_reload_success_timestamp_seconds",
                "Timestamp of the last successful configuration reload (or of the start).",
                MetricType::Gauge)
      .Add({}, reload.last_success_unix_seconds)
      .AppendTo(out);
}

void AppendHttpMetrics(const std::vector<ListenerStats>& listeners,
                       std::vector<prometheus::MetricFamily>& out) {
  FamilyBuilder conns("rxe_exporter_http_connections_total",
                      "HTTP connections per listener: accepted, evicted (closed to make room "
                      "under --web.max-connections) and rejected (closed at once: every "
                      "connection was busy).",
                      MetricType::Counter);
  FamilyBuilder open("rxe_exporter_http_open_connections", "HTTP connections open now.",
                     MetricType::Gauge);
  FamilyBuilder big("rxe_exporter_http_headers_too_large_total",
                    "Requests answered 431: headers over --web.max-header-bytes or 100 lines.",
                    MetricType::Counter);
  for (const auto& l : listeners) {
    conns.Add({{"listener", l.listener}, {"outcome", "accepted"}}, static_cast<double>(l.accepted));
    conns.Add({{"listener", l.listener}, {"outcome", "evicted"}}, static_cast<double>(l.evicted));
    conns.Add({{"listener", l.listener}, {"outcome", "rejected"}}, static_cast<double>(l.rejected));
    open.Add({{"listener", l.listener}}, static_cast<double>(l.open));
    big.Add({{"listener", l.listener}}, static_cast<double>(l.headers_too_large));
  }
  conns.AppendTo(out);
  open.AppendTo(out);
  big.AppendTo(out);
}

void AppendRenderMetrics(uint64_t coalesced, std::vector<prometheus::MetricFamily>& out) {
  FamilyBuilder("rxe_exporter_scrapes_coalesced_total",
                "Telemetry requests that arrived while another request's render was running and "
                "were answered with its result instead of rendering again.",
                MetricType::Counter)
      .Add({}, static_cast<double>(coalesced))
      .AppendTo(out);
}

}  // namespace rxe::exporter
