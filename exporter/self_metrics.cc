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

}  // namespace rxe::exporter
