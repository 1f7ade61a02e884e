#include <gtest/gtest.h>

#include "probes/results.h"
#include "probes/results_json.h"

namespace rxe::probes {
namespace {

PairInfo Pair(std::string module, std::string peer, config::ProbeType t,
              std::map<std::string, std::string> labels = {}) {
  return PairInfo{{std::move(module), std::move(peer)}, t, std::move(labels)};
}

ProbeOutcome BwOk(std::string peer, uint64_t bytes, std::chrono::milliseconds elapsed) {
  ProbeOutcome o;
  o.module = "bw";
  o.peer = std::move(peer);
  o.type = config::ProbeType::kWriteBw;
  o.success = true;
  o.measurement = Measurement{BandwidthMeasurement{bytes, bytes / 65536, elapsed}};
  o.started_at = std::chrono::system_clock::time_point{} + std::chrono::seconds(1'800'000'000);
  o.duration = std::chrono::milliseconds(1500);
  return o;
}

ProbeOutcome LatOk(std::vector<double> rtts) {
  ProbeOutcome o;
  o.module = "lat";
  o.peer = "b";
  o.type = config::ProbeType::kSendLat;
  o.success = true;
  o.measurement = Measurement{LatencyMeasurement{std::move(rtts)}};
  o.duration = std::chrono::milliseconds(40);
  return o;
}

ProbeOutcome Failed(std::string module, std::string peer, config::ProbeType t, FailureReason r) {
  ProbeOutcome o;
  o.module = std::move(module);
  o.peer = std::move(peer);
  o.type = t;
  o.failure = ProbeFailure{r, "retry exceeded on qp 0x11", "transport retry counter exceeded"};
  o.duration = std::chrono::milliseconds(700);
  return o;
}

const PairState* Find(const std::vector<PairState>& v, const std::string& module, const std::string& peer) {
  for (const auto& s : v) {
    if (s.info.key.module == module && s.info.key.peer == peer) return &s;
  }
  return nullptr;
}

std::vector<PairState> All(const ResultStore& r) {
  std::vector<PairState> v;
  r.ForEach([&](const PairState& s) { v.push_back(s); });
  return v;
}

TEST(ResultsStoreTest, NewPairsStartAtZeroWithEveryReasonAndCounter) {
  ResultStore r;
  r.SetPairs({Pair("bw", "b", config::ProbeType::kWriteBw)}, 5);
  auto v = All(r);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].probes, 0u);
  EXPECT_EQ(v[0].failures.size(), std::size(kAllFailureReasons));
  EXPECT_EQ(v[0].attributed.size(), kAttributedCounters.size());
  EXPECT_FALSE(v[0].has_result);
}

TEST(ResultsStoreTest, RecordsBandwidthSuccessAndFailure) {
  ResultStore r;
  r.SetPairs({Pair("bw", "b", config::ProbeType::kWriteBw)}, 5);
  r.Record(BwOk("b", 100'000'000, std::chrono::milliseconds(1000)));
  auto s = *Find(All(r), "bw", "b");
  EXPECT_EQ(s.probes, 1u);
  EXPECT_TRUE(s.last_success);
  EXPECT_DOUBLE_EQ(s.last_bandwidth.bytes_per_second, 1e8);
  EXPECT_EQ(s.transferred_bytes, 100'000'000u);
  EXPECT_DOUBLE_EQ(s.last_duration_seconds, 1.5);
  EXPECT_DOUBLE_EQ(s.last_success_timestamp, 1'800'000'001.5);

  r.Record(Failed("bw", "b", config::ProbeType::kWriteBw, FailureReason::kWcError));
  s = *Find(All(r), "bw", "b");
  EXPECT_EQ(s.probes, 2u);
  EXPECT_FALSE(s.last_success);
  EXPECT_EQ(s.failures.at(FailureReason::kWcError), 1u);
  EXPECT_DOUBLE_EQ(s.last_bandwidth.bytes_per_second, 1e8);  // last successful value kept
  EXPECT_DOUBLE_EQ(s.last_success_timestamp, 1'800'000'001.5);
  EXPECT_EQ(s.transferred_bytes, 100'000'000u);
}

TEST(ResultsStoreTest, LatencyHistogramIsOneWay) {
  ResultStore r;
  r.SetPairs({Pair("lat", "b", config::ProbeType::kSendLat)}, 5);
  // RTTs 10 us, 20 us, 30 us, 40 us, 3 s -> one-way 5 us, 10 us, 15 us, 20 us, 1.5 s.
  r.Record(LatOk({10e-6, 20e-6, 30e-6, 40e-6, 3.0}));
  auto s = *Find(All(r), "lat", "b");
  EXPECT_EQ(s.latency_count, 5u);
  EXPECT_NEAR(s.latency_sum, 1.50005, 1e-9);
  EXPECT_EQ(s.bucket_counts[2], 1u);  // <= 5 us
  EXPECT_EQ(s.bucket_counts[3], 1u);  // <= 10 us
  EXPECT_EQ(s.bucket_counts[4], 2u);  // <= 20 us
  uint64_t in_buckets = 0;
  for (auto n : s.bucket_counts) in_buckets += n;
  EXPECT_EQ(in_buckets, 4u);  // 1.5 s only in +Inf
  EXPECT_EQ(s.last_latency.samples, 5u);
  EXPECT_NEAR(s.last_latency.min, 5e-6, 1e-12);
}

TEST(ResultsStoreTest, AttributedCountersOnlyWhenAlone) {
  ResultStore r;
  r.SetPairs({Pair("bw", "b", config::ProbeType::kWriteBw)}, 5);
  auto o = BwOk("b", 1000, std::chrono::milliseconds(10));
  o.counter_deltas = {{"duplicate_request", 7}, {"rcvd_seq_err", 2}, {"sent_pkts", 99}};
  r.Record(o);  // not attributed
  o.counters_attributed = true;
  r.Record(o);
  r.Record(o);
  auto s = *Find(All(r), "bw", "b");
  EXPECT_EQ(s.attributed.at("duplicate_request"), 14u);
  EXPECT_EQ(s.attributed.at("rcvd_seq_err"), 4u);
  EXPECT_EQ(s.attributed.count("sent_pkts"), 0u);  // not an attributed counter
}

TEST(ResultsStoreTest, ReloadKeepsRemovesAndResets) {
  ResultStore r;
  r.SetPairs({Pair("bw", "b", config::ProbeType::kWriteBw), Pair("bw", "c", config::ProbeType::kWriteBw)}, 5);
  r.Record(BwOk("b", 1000, std::chrono::milliseconds(10)));
  r.Record(BwOk("c", 1000, std::chrono::milliseconds(10)));
  r.SetPairs({Pair("bw", "b", config::ProbeType::kWriteBw),
              Pair("bw", "c", config::ProbeType::kWriteBw, {{"rack", "r2"}})},
             5);
  auto v = All(r);
  EXPECT_EQ(Find(v, "bw", "b")->probes, 1u);  // kept
  EXPECT_EQ(Find(v, "bw", "c")->probes, 0u);  // labels changed: new series
  r.SetPairs({Pair("bw", "c", config::ProbeType::kWriteBw, {{"rack", "r2"}})}, 5);
  EXPECT_EQ(Find(All(r), "bw", "b"), nullptr);
  r.Record(BwOk("b", 1000, std::chrono::milliseconds(10)));  // late result of a removed pair
  EXPECT_EQ(r.size(), 1u);
}

TEST(ResultsStoreTest, HistoryIsBoundedAndJsonHasDetails) {
  ResultStore r;
  r.SetPairs({Pair("bw", "b\"q", config::ProbeType::kWriteBw)}, 3);
  for (int i = 0; i < 5; ++i) {
    auto o = BwOk("b\"q", 1000 + i, std::chrono::milliseconds(10));
    o.data_start = std::chrono::milliseconds(250);
    o.data_end = std::chrono::milliseconds(10500);
    r.Record(o);
  }
  r.Record(Failed("bw", "b\"q", config::ProbeType::kWriteBw, FailureReason::kWcError));
  auto s = *Find(All(r), "bw", "b\"q");
  ASSERT_EQ(s.history.size(), 3u);
  EXPECT_FALSE(s.history.back().outcome.success);
  std::string json = ResultsToJson(r);
  EXPECT_NE(json.find("\"peer\":\"b\\\"q\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"reason\":\"wc_error\""), std::string::npos);
  EXPECT_NE(json.find("\"wc_status\":\"transport retry counter exceeded\""), std::string::npos);
  EXPECT_NE(json.find("\"bytes\":1004"), std::string::npos);
  EXPECT_EQ(json.find("\"bytes\":1001"), std::string::npos);  // dropped from the history
  EXPECT_LT(json.find("wc_error"), json.find("\"bytes\":1004"));  // newest first
  EXPECT_NE(json.find("\"params\":{\"type\":\"write_bw\""), std::string::npos);
  EXPECT_NE(json.find("\"qp_timeout\":14,\"use_event\":false}"), std::string::npos)
      << json;  // the last params
  EXPECT_NE(json.find("\"data_phase\":{\"start_seconds\":0.25,\"end_seconds\":10.5}"), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"data_phase\":null"), std::string::npos) << json;  // the failure never got there
}

TEST(ResultsStoreTest, LatencySamplesNotKeptInHistory) {
  ResultStore r;
  r.SetPairs({Pair("lat", "b", config::ProbeType::kSendLat)}, 3);
  r.Record(LatOk(std::vector<double>(1000, 20e-6)));
  auto s = *Find(All(r), "lat", "b");
  ASSERT_EQ(s.history.size(), 1u);
  EXPECT_TRUE(std::get<LatencyMeasurement>(*s.history[0].outcome.measurement).rtt_seconds.empty());
  EXPECT_EQ(s.history[0].latency->samples, 1000u);
  EXPECT_NE(ResultsToJson(r).find("\"median_seconds\":1e-05"), std::string::npos) << ResultsToJson(r);
}

TEST(ResultsStoreTest, JsonParamsShowUseEvent) {
  ResultStore r;
  r.SetPairs({Pair("lat", "b", config::ProbeType::kSendLat)}, 3);
  auto o = LatOk({20e-6, 30e-6, 40e-6});
  o.params.type = config::ProbeType::kSendLat;
  o.params.use_event = true;
  r.Record(o);
  const std::string json = ResultsToJson(r);
  EXPECT_NE(json.find("\"params\":{\"type\":\"send_lat\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"use_event\":true}"), std::string::npos) << json;
}

}  // namespace
}  // namespace rxe::probes
