#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include "probes/probe_metrics.h"

namespace rxe::probes {
namespace {

std::string Text(const std::vector<prometheus::MetricFamily>& f) {
  return prometheus::TextSerializer().Serialize(f);
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

void TwoPairs(ResultStore& r) {
  r.SetPairs({PairInfo{{"bw", "b"}, config::ProbeType::kWriteBw, {{"rack", "r1"}, {"peer", "evil"}}},
              PairInfo{{"lat", "b"}, config::ProbeType::kWriteLat, {}}},
             5);
}

TEST(ProbeMetricsCollectTest, PreCreatesEveryConfiguredSeries) {
  ResultStore r;
  TwoPairs(r);
  ResponderStats rs;
  for (auto reason : control::kAllRejectReasons) rs.rejections[reason] = 0;
  std::string t = Text(BuildProbeFamilies(r, ServiceCounters{0, 0, rs}));
  EXPECT_NE(t.find("rxe_probes_total{module=\"bw\",peer=\"b\",rack=\"r1\"} 0"), std::string::npos) << t;
  EXPECT_EQ(t.find("evil"), std::string::npos);  // an extra label may not override peer
  EXPECT_EQ(Count(t, "rxe_probe_failures_total{module=\"bw\""), std::size(kAllFailureReasons));
  EXPECT_NE(t.find("rxe_probe_failures_total{module=\"lat\",peer=\"b\",reason=\"mtu_above_active\"} 0"),
            std::string::npos);
  EXPECT_EQ(Count(t, "rxe_probe_attributed_hw_stat_total{module=\"lat\""), kAttributedCounters.size());
  // Type-specific families only for pairs of that type.
  EXPECT_NE(t.find("rxe_probe_bandwidth_bytes_per_second{module=\"bw\""), std::string::npos);
  EXPECT_EQ(t.find("rxe_probe_bandwidth_bytes_per_second{module=\"lat\""), std::string::npos);
  EXPECT_NE(t.find("rxe_probe_latency_seconds_bucket{module=\"lat\",peer=\"b\",le=\"1e-06\"} 0"),
            std::string::npos) << t;
  EXPECT_NE(t.find("rxe_probe_latency_seconds_bucket{module=\"lat\",peer=\"b\",le=\"+Inf\"} 0"),
            std::string::npos);
  EXPECT_EQ(t.find("rxe_probe_latency_seconds_bucket{module=\"bw\""), std::string::npos);
  for (const char* g : {"min", "median", "mean", "p99", "p999", "max", "stddev"}) {
    EXPECT_NE(t.find(std::string("rxe_probe_latency_") + g + "_seconds{module=\"lat\""), std::string::npos) << g;
  }
  EXPECT_NE(t.find("rxe_prober_deferred_total{reason=\"budget\"} 0"), std::string::npos);
  EXPECT_NE(t.find("rxe_prober_deferred_total{reason=\"concurrency\"} 0"), std::string::npos);
  EXPECT_NE(t.find("rxe_responder_rejections_total{reason=\"not_allowed\"} 0"), std::string::npos);
  EXPECT_NE(t.find("rxe_responder_active_sessions 0"), std::string::npos);
  EXPECT_NE(t.find("not on scrape"), std::string::npos);
  EXPECT_NE(t.find("round trip / 2"), std::string::npos);
}

TEST(ProbeMetricsCollectTest, ValuesAfterResults) {
  ResultStore r;
  TwoPairs(r);
  ProbeOutcome lat;
  lat.module = "lat";
  lat.peer = "b";
  lat.type = config::ProbeType::kWriteLat;
  lat.success = true;
  lat.measurement = Measurement{LatencyMeasurement{{10e-6, 10e-6, 30e-6, 100e-6}}};
  r.Record(lat);
  ProbeOutcome bw;
  bw.module = "bw";
  bw.peer = "b";
  bw.type = config::ProbeType::kWriteBw;
  bw.failure = ProbeFailure{FailureReason::kTimeout, "x", ""};
  r.Record(bw);
  std::string t = Text(BuildProbeFamilies(r, ServiceCounters{3, 1, std::nullopt}));
  EXPECT_NE(t.find("rxe_probe_latency_seconds_count{module=\"lat\",peer=\"b\"} 4"), std::string::npos) << t;
  EXPECT_NE(t.find("rxe_probe_latency_seconds_bucket{module=\"lat\",peer=\"b\",le=\"5e-06\"} 2"),
            std::string::npos);
  EXPECT_NE(t.find("rxe_probe_latency_seconds_bucket{module=\"lat\",peer=\"b\",le=\"2e-05\"} 3"),
            std::string::npos);
  EXPECT_NE(t.find("rxe_probe_latency_seconds_bucket{module=\"lat\",peer=\"b\",le=\"5e-05\"} 4"),
            std::string::npos);
  EXPECT_NE(t.find("rxe_probe_success{module=\"lat\",peer=\"b\"} 1"), std::string::npos);
  EXPECT_NE(t.find("rxe_probe_success{module=\"bw\",peer=\"b\",rack=\"r1\"} 0"), std::string::npos);
  EXPECT_NE(t.find("rxe_probe_failures_total{module=\"bw\",peer=\"b\",rack=\"r1\",reason=\"timeout\"} 1"),
            std::string::npos);
  EXPECT_NE(t.find("rxe_prober_deferred_total{reason=\"concurrency\"} 3"), std::string::npos);
  EXPECT_NE(t.find("rxe_prober_deferred_total{reason=\"budget\"} 1"), std::string::npos);
  EXPECT_EQ(t.find("rxe_responder_"), std::string::npos);  // responder disabled
  // Families are unique (one HELP/TYPE per name).
  EXPECT_EQ(Count(t, "# TYPE rxe_probes_total "), 1u);
}

TEST(ProbeMetricsCollectTest, NoPairsStillHasProberCounters) {
  ResultStore r;
  auto f = BuildProbeFamilies(r, ServiceCounters{});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].name, "rxe_prober_deferred_total");
  EXPECT_EQ(f[1].name, "rxe_prober_internal_errors_total");
}

}  // namespace
}  // namespace rxe::probes
