#include "probes/probe_metrics.h"

#include <limits>
#include <string>
#include <utility>

#include "probes/metric_families.h"

namespace rxe::probes {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

constexpr const char* kCached =
    " (from the last completed probe; probes run on their own schedule, not on scrape)";
constexpr const char* kCachedOk =
    " (from the last successful probe; probes run on their own schedule, not on scrape)";
constexpr const char* kOneWay = " One-way latency = round trip / 2, as perftest reports send/write latency.";

std::vector<ClientMetric::Label> PairLabels(const PairInfo& p) {
  std::vector<ClientMetric::Label> l{{"module", p.key.module}, {"peer", p.key.peer}};
  for (const auto& [k, v] : p.labels) {
    if (k == "module" || k == "peer" || k == "reason" || k == "counter" || k == "le") continue;
    l.push_back({k, v});
  }
  return l;
}

std::vector<ClientMetric::Label> With(std::vector<ClientMetric::Label> l, std::string k, std::string v) {
  l.push_back({std::move(k), std::move(v)});
  return l;
}

void AddCommon(Families& f, const PairState& s, const std::vector<ClientMetric::Label>& l) {
  const auto G = MetricType::Gauge;
  const auto C = MetricType::Counter;
  f.Add("rxe_probes_total", "Probes completed (successful or not) per module and peer.", C, l,
        static_cast<double>(s.probes));
  for (const auto& [reason, n] : s.failures) {
    f.Add("rxe_probe_failures_total",
          "Failed probes per module, peer and reason (connect_refused, timeout, wc_error, ...).", C,
          With(l, "reason", std::string(FailureReasonName(reason))), static_cast<double>(n));
  }
  f.Add("rxe_probe_success", std::string("1 if the probe succeeded, 0 if it failed") + kCached + ".", G,
        l, s.last_success ? 1 : 0);
  f.Add("rxe_probe_duration_seconds",
        std::string("Wall time of the probe including connection set-up") + kCached + ".", G, l,
        s.last_duration_seconds);
  f.Add("rxe_probe_last_success_timestamp_seconds",
        "Unix time when the last successful probe finished (0 = never).", G, l,
        s.last_success_timestamp);
  for (const auto& [name, n] : s.attributed) {
    f.Add("rxe_probe_attributed_hw_stat_total",
          "rxe hw counter increments on the local device during probes that ran alone on it "
          "(per-probe counter deltas attributed to module and peer).",
          C, With(l, "counter", name), static_cast<double>(n));
  }
}

void AddBandwidth(Families& f, const PairState& s, const std::vector<ClientMetric::Label>& l) {
  f.Add("rxe_probe_bandwidth_bytes_per_second",
        std::string("Average bandwidth (perftest BW average: bytes / (last completion - first post))") +
            kCachedOk + ".",
        MetricType::Gauge, l, s.last_bandwidth.bytes_per_second);
  f.Add("rxe_probe_message_rate_per_second",
        std::string("Messages per second (perftest MsgRate)") + kCachedOk + ".", MetricType::Gauge, l,
        s.last_bandwidth.messages_per_second);
  f.Add("rxe_probe_transferred_bytes_total", "Bytes moved by successful bandwidth probes.",
        MetricType::Counter, l, static_cast<double>(s.transferred_bytes));
  f.Add("rxe_probe_messages_total", "Messages completed by successful bandwidth probes.",
        MetricType::Counter, l, static_cast<double>(s.messages));
}

void AddLatency(Families& f, const PairState& s, const std::vector<ClientMetric::Label>& l) {
  ClientMetric h =
      Histogram(l, kLatencyBuckets, s.bucket_counts, s.latency_count, s.latency_sum);
  f.Get("rxe_probe_latency_seconds",
        std::string("Every latency sample of successful latency probes.") + kOneWay,
        MetricType::Histogram)
      .metric.push_back(std::move(h));
  const LatencyStats& st = s.last_latency;
  std::pair<const char*, double> gauges[] = {
      {"min", st.min},   {"median", st.median}, {"mean", st.mean},    {"p99", st.p99},
      {"p999", st.p999}, {"max", st.max},       {"stddev", st.stdev}};
  for (const auto& [what, v] : gauges) {
    f.Add(std::string("rxe_probe_latency_") + what + "_seconds",
          std::string("perftest-style ") + what + " latency (2 largest samples dropped)" + kCachedOk +
              "." + kOneWay,
          MetricType::Gauge, l, v);
  }
}

}  // namespace

std::vector<MetricFamily> BuildProbeFamilies(const ResultStore& results, const ServiceCounters& c) {
  Families f;
  results.ForEach([&](const PairState& s) {
    auto l = PairLabels(s.info);
    AddCommon(f, s, l);
    if (config::IsBandwidth(s.info.type)) {
      AddBandwidth(f, s, l);
    } else {
      AddLatency(f, s, l);
    }
  });
  const char* deferred_help =
      "Scheduled probe runs that could not start on time (concurrency: max_concurrent or "
      "per-device limits; budget: byte_budget_per_second), counted once per run.";
  f.Add("rxe_prober_deferred_total", deferred_help, MetricType::Counter, {{"reason", "budget"}},
        static_cast<double>(c.deferred_budget));
  f.Add("rxe_prober_deferred_total", deferred_help, MetricType::Counter, {{"reason", "concurrency"}},
        static_cast<double>(c.deferred_concurrency));
  f.Add("rxe_prober_internal_errors_total",
        "Exceptions (e.g. out of memory) caught in a probe worker or the probe scheduler; the "
        "scheduler went on.",
        MetricType::Counter, {}, static_cast<double>(c.internal_errors));
  if (c.responder) {
    const ResponderStats& r = *c.responder;
    f.Add("rxe_responder_sessions_total", "Probe sessions accepted by the responder.",
          MetricType::Counter, {}, static_cast<double>(r.sessions_total));
    f.Add("rxe_responder_active_sessions", "Probe sessions the responder is serving now.",
          MetricType::Gauge, {}, static_cast<double>(r.active_sessions));
    f.Add("rxe_responder_internal_errors_total",
          "Exceptions (e.g. out of memory) caught in the responder's accept loop or a connection "
          "thread; the responder went on.",
          MetricType::Counter, {}, static_cast<double>(r.internal_errors));
    for (const auto& [reason, n] : r.rejections) {
      f.Add("rxe_responder_rejections_total",
            "Control connections the responder refused, by reason.", MetricType::Counter,
            {{"reason", std::string(control::RejectReasonName(reason))}}, static_cast<double>(n));
    }
  }
  return f.Take();
}

}  // namespace rxe::probes
