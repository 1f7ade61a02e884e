// ud_ping metric families from PeerReports (no verbs): names and labels of the session 5
// contract, deltas of cumulative reports, valid-only RTT histogram, aggregate_by sums,
// per-device loop counters across a pinger's re-creation; and the GRH / ACL helpers.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "config/loader.h"
#include "probes/scheduler_runner.h"
#include "probes/ud_metrics.h"
#include "probes/ud_wire.h"

namespace rxe::probes {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;

const MetricFamily* Find(const std::vector<MetricFamily>& fs, const std::string& name) {
  for (const auto& f : fs) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::map<std::string, std::string> LabelMap(const ClientMetric& m) {
  std::map<std::string, std::string> out;
  for (const auto& l : m.label) out[l.name] = l.value;
  return out;
}

// The value of the series of `name` whose labels include all of `want`.
double Value(const std::vector<MetricFamily>& fs, const std::string& name,
             const std::map<std::string, std::string>& want) {
  const MetricFamily* f = Find(fs, name);
  if (f == nullptr) return -1;
  for (const auto& m : f->metric) {
    auto l = LabelMap(m);
    bool match = true;
    for (const auto& [k, v] : want) match = match && l.count(k) && l[k] == v;
    if (!match) continue;
    if (f->type == prometheus::MetricType::Histogram) return static_cast<double>(m.histogram.sample_count);
    return f->type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
  }
  return -1;
}

ud::Sample S(double total, double responder, bool valid = true) {
  ud::Sample s;
  s.total_seconds = total;
  s.responder_seconds = responder;
  s.network_seconds = valid ? total - responder : 0;
  s.valid = valid;
  return s;
}

ud::PeerReport R(const std::string& name, uint64_t sent, uint64_t received, uint64_t lost,
                 std::vector<ud::Sample> samples = {}) {
  ud::PeerReport r;
  r.name = name;
  r.sent = sent;
  r.received = received;
  r.lost = lost;
  r.samples = std::move(samples);
  return r;
}

std::vector<UdPairInfo> ThreePeers(const std::string& aggregate_by) {
  return {{"mesh", "b", {{"rack", "r1"}}, aggregate_by},
          {"mesh", "c", {{"rack", "r1"}}, aggregate_by},
          {"mesh", "d", {{"rack", "r2"}}, aggregate_by}};
}

TEST(UdStats, PerPeerSeriesFromCumulativeReports) {
  UdStats st;
  st.SetPairs(ThreePeers(""), {"mesh"});
  st.Fold("mesh", "b", R("b", 10, 9, 1, {S(300e-6, 100e-6), S(500e-6, 50e-6)}));
  auto second = R("b", 20, 18, 2, {S(10e-6, 20e-6, /*valid=*/false)});
  second.late = 1;
  st.Fold("mesh", "b", second);
  const auto fs = st.Families();
  const std::map<std::string, std::string> b{{"module", "mesh"}, {"peer", "b"}, {"rack", "r1"}};
  EXPECT_EQ(Value(fs, "rxe_ud_ping_sent_total", b), 20);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_received_total", b), 18);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_lost_total", b), 2);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_late_total", b), 1);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_send_errors_total", b), 0);
  // Only the two valid samples feed the histogram, with their NETWORK time.
  EXPECT_EQ(Value(fs, "rxe_probe_latency_seconds", b), 2);
  const MetricFamily* h = Find(fs, "rxe_probe_latency_seconds");
  ASSERT_NE(h, nullptr);
  EXPECT_NEAR(h->metric[0].histogram.sample_sum, 200e-6 + 450e-6, 1e-12);
  // 200 us -> the 2e-4 bucket (le is inclusive); 450 us -> 5e-4.
  for (const auto& bucket : h->metric[0].histogram.bucket) {
    if (bucket.upper_bound == 1e-4) {
      EXPECT_EQ(bucket.cumulative_count, 0u);
    } else if (bucket.upper_bound == 2e-4) {
      EXPECT_EQ(bucket.cumulative_count, 1u);
    } else if (bucket.upper_bound == 5e-4) {
      EXPECT_EQ(bucket.cumulative_count, 2u);
    }
  }
  auto comp = [&](const char* c) {
    auto l = b;
    l["component"] = c;
    return Value(fs, "rxe_ud_ping_seconds_total", l);
  };
  EXPECT_NEAR(comp("total"), 800e-6, 1e-12);
  EXPECT_NEAR(comp("responder"), 150e-6, 1e-12);
  EXPECT_NEAR(comp("network"), 650e-6, 1e-12);
  // Every configured pair has its series from 0; the module gauge counts peers.
  EXPECT_EQ(Value(fs, "rxe_ud_ping_sent_total", {{"peer", "d"}}), 0);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_peers", {{"module", "mesh"}}), 3);
  EXPECT_EQ(Find(fs, "rxe_ud_ping_sent_total")->metric.size(), 3u);
}

TEST(UdStats, ResetReportCountsFromZeroAndRemovedPairsDisappear) {
  UdStats st;
  st.SetPairs(ThreePeers(""), {"mesh"});
  st.Fold("mesh", "c", R("c", 50, 50, 0));
  st.Fold("mesh", "c", R("c", 5, 4, 1));  // a new pinger (e.g. timing changed): all new
  st.Fold("mesh", "nobody", R("nobody", 5, 5, 0));  // not configured: ignored
  auto fs = st.Families();
  EXPECT_EQ(Value(fs, "rxe_ud_ping_sent_total", {{"peer", "c"}}), 55);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_lost_total", {{"peer", "c"}}), 1);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_sent_total", {{"peer", "nobody"}}), -1);
  st.SetPairs({{"mesh", "c", {{"rack", "r1"}}, ""}}, {"mesh"});
  fs = st.Families();
  EXPECT_EQ(Value(fs, "rxe_ud_ping_sent_total", {{"peer", "c"}}), 55) << "kept across reload";
  EXPECT_EQ(Value(fs, "rxe_ud_ping_sent_total", {{"peer", "b"}}), -1);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_peers", {{"module", "mesh"}}), 1);
}

TEST(UdStats, AggregateBySumsPerLabelValueWithoutPeerLabel) {
  UdStats st;
  st.SetPairs(ThreePeers("rack"), {"mesh"});
  st.Fold("mesh", "b", R("b", 10, 10, 0, {S(1e-3, 0)}));
  st.Fold("mesh", "c", R("c", 10, 7, 3, {S(3e-3, 1e-3)}));
  st.Fold("mesh", "d", R("d", 4, 4, 0));
  st.CountUnresolved("mesh", "b");
  st.CountUnresolved("mesh", "c");
  st.CountUnresolved("mesh", "unknown");  // not a configured pair: ignored
  const auto fs = st.Families();
  const MetricFamily* sent = Find(fs, "rxe_ud_ping_sent_total");
  ASSERT_NE(sent, nullptr);
  ASSERT_EQ(sent->metric.size(), 2u) << "one series per rack";
  for (const auto& m : sent->metric) {
    auto l = LabelMap(m);
    EXPECT_EQ(l.count("peer"), 0u);
    EXPECT_EQ(l.size(), 2u);  // module, rack
  }
  EXPECT_EQ(Value(fs, "rxe_ud_ping_sent_total", {{"module", "mesh"}, {"rack", "r1"}}), 20);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_lost_total", {{"rack", "r1"}}), 3);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_sent_total", {{"rack", "r2"}}), 4);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_unresolved_total", {{"rack", "r1"}}), 2);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_unresolved_total", {{"rack", "r2"}}), 0);
  EXPECT_EQ(Value(fs, "rxe_probe_latency_seconds", {{"rack", "r1"}}), 2);
  const MetricFamily* h = Find(fs, "rxe_probe_latency_seconds");
  EXPECT_NEAR(h->metric[0].histogram.sample_sum, 3e-3, 1e-12);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_peers", {{"module", "mesh"}}), 3);
}

TEST(UdStats, FetchAndDeviceCounters) {
  UdStats st;
  st.SetPairs(ThreePeers(""), {"mesh", "empty"});
  st.CountFetch("mesh", true);
  st.CountFetch("mesh", true);
  st.CountFetch("mesh", false);
  ud::LoopCounters c;
  c.pongs_sent = 7;
  c.malformed = 2;
  c.skipped_rounds = 1;
  c.not_allowed = 3;
  st.SetDevice("rxe0", c);
  st.RebaseDevice("rxe0");  // the pinger was replaced; the new one counts from 0
  c = {};
  c.pongs_sent = 5;
  st.SetDevice("rxe0", c);
  const auto fs = st.Families();
  EXPECT_EQ(Value(fs, "rxe_ud_ping_address_fetches_total", {{"module", "mesh"}, {"result", "ok"}}), 2);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_address_fetches_total", {{"module", "mesh"}, {"result", "error"}}), 1);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_address_fetches_total", {{"module", "empty"}, {"result", "ok"}}), 0);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_peers", {{"module", "empty"}}), 0);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_pongs_sent_total", {{"device", "rxe0"}}), 12);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_malformed_total", {{"device", "rxe0"}}), 2);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_skipped_rounds_total", {{"device", "rxe0"}}), 1);
  EXPECT_EQ(Value(fs, "rxe_ud_ping_not_allowed_total", {{"device", "rxe0"}}), 3);
}

TEST(UdStats, MergeKeepsOneFamilyPerName) {
  std::vector<MetricFamily> rc{{"rxe_probe_latency_seconds", "rc", prometheus::MetricType::Histogram, {ClientMetric{}}},
                               {"rxe_probes_total", "x", prometheus::MetricType::Counter, {}}};
  UdStats st;
  st.SetPairs(ThreePeers(""), {"mesh"});
  MergeFamilies(&rc, st.Families());
  size_t latency = 0;
  for (const auto& f : rc) latency += f.name == "rxe_probe_latency_seconds";
  EXPECT_EQ(latency, 1u);
  EXPECT_EQ(Find(rc, "rxe_probe_latency_seconds")->metric.size(), 4u);  // 1 RC + 3 ud_ping
}

TEST(UdMeshPeers, SchedulerNeverRunsUdPingAndPeersResolveInOnePlace) {
  auto cfg = config::LoadString(
      "peers:\n  - {name: b, address: 10.0.0.2}\n  - {name: c, address: 10.0.0.3}\n"
      "modules:\n  mesh:\n    type: ud_ping\n  lat:\n    type: send_lat\n    peers: [c]\n",
      "t.yml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  const auto pairs = PairsFrom(*cfg);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].module.name, "lat");
  const auto peers = ModulePeersOf(*cfg, cfg->modules.at("mesh"));
  ASSERT_EQ(peers.size(), 2u);
  EXPECT_EQ(peers[0].name, "b");
  EXPECT_EQ(peers[1].name, "c");
}

TEST(UdGrh, SourceGidOfRoceV2Ipv4AndIpv6) {
  std::array<uint8_t, 40> grh{};
  grh[20] = 0x45;  // IPv4, IHL 5 (the kernel zeroes bytes 0..19)
  grh[32] = 10;
  grh[33] = 0;
  grh[34] = 2;
  grh[35] = 15;
  auto gid = ud::SourceGidFromGrh(grh);
  ASSERT_TRUE(gid);
  in_addr ip{};
  inet_pton(AF_INET, "10.0.2.15", &ip);
  EXPECT_EQ(*gid, Ipv4MappedGid(ip));
  std::array<uint8_t, 40> v6{};
  v6[0] = 0x60;
  for (size_t i = 8; i < 24; ++i) v6[i] = static_cast<uint8_t>(i);
  v6[20] = 0x45;  // part of the source address: must not be read as an IPv4 header
  gid = ud::SourceGidFromGrh(v6);
  ASSERT_TRUE(gid);
  EXPECT_EQ((*gid)[0], 8);
  EXPECT_EQ((*gid)[12], 0x45);
  EXPECT_FALSE(ud::SourceGidFromGrh(std::array<uint8_t, 40>{}));
  EXPECT_FALSE(ud::SourceGidFromGrh(std::span<const uint8_t>(grh.data(), 39)));
}

TEST(UdGrh, AclDecidesOnTheGrhSource) {
  auto acl = SourceAcl::Make({"192.168.0.0/24"}, {"10.0.2.15"});
  ASSERT_TRUE(acl.ok());
  in_addr ip{};
  inet_pton(AF_INET, "10.0.2.15", &ip);
  EXPECT_TRUE(acl->Allows(ud::GidToSockaddr(Ipv4MappedGid(ip))));
  inet_pton(AF_INET, "192.168.0.77", &ip);
  EXPECT_TRUE(acl->Allows(ud::GidToSockaddr(Ipv4MappedGid(ip))));
  inet_pton(AF_INET, "10.0.2.16", &ip);
  EXPECT_FALSE(acl->Allows(ud::GidToSockaddr(Ipv4MappedGid(ip))));
  Gid link_local{0xfe, 0x80};
  EXPECT_FALSE(acl->Allows(ud::GidToSockaddr(link_local)));
}

}  // namespace
}  // namespace rxe::probes
