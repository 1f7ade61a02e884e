// Builds the probe metric families at scrape time from cached results
// (ResultStore), the scheduler's deferral counters and the responder's
// counters. Pure: no probes are started here.
//
// Per pair, labels {module, peer, <peer's extra labels>}; every configured
// pair's series exist from 0 (failure reasons and attributed counters too).
#pragma once

#include <prometheus/metric_family.h>

#include <optional>
#include <vector>

#include "probes/responder.h"
#include "probes/results.h"

namespace rxe::probes {

struct ServiceCounters {
  uint64_t deferred_concurrency = 0;
  uint64_t deferred_budget = 0;
  std::optional<ResponderStats> responder;  // nullopt: responder disabled
  uint64_t internal_errors = 0;  // SchedulerRunner::InternalErrors()
};

std::vector<prometheus::MetricFamily> BuildProbeFamilies(const ResultStore& results,
                                                         const ServiceCounters& counters);

}  // namespace rxe::probes
