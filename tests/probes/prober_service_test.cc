// ProbeService end to end over loopback TCP with fake RDMA sessions:
// scheduling, cached metrics, live reload, Stop latency.
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "probes/counter_delta.h"
#include "probes/probe_service.h"
#include "tests/probes/prober_test_fakes.h"

namespace rxe::probes {
namespace {

using std::chrono::milliseconds;

std::string Text(const ProbeService& s) { return prometheus::TextSerializer().Serialize(s.Collect()); }

double Value(const std::string& text, const std::string& series) {
  auto p = text.find("\n" + series + " ");  // a sample line, not a HELP line
  if (p == std::string::npos) return -1;
  return std::stod(text.substr(p + series.size() + 2));
}

config::Config BaseConfig() {
  config::Config cfg;
  cfg.responder.listen_addresses = {"127.0.0.1:0"};
  cfg.responder.allowed_cidrs = {"127.0.0.0/8"};
  cfg.prober.max_concurrent = 4;
  return cfg;
}

config::Module Mod(config::ProbeType t, milliseconds interval) {
  config::Module m;
  m.type = t;
  m.interval = interval;
  m.timeout = milliseconds(2000);
  m.size = 64;
  m.iterations = 50;
  m.duration = milliseconds(50);
  return m;
}

struct Service {
  std::shared_ptr<testing::FakeBehavior> fake = std::make_shared<testing::FakeBehavior>();
  ProbeService svc;
  uint16_t port = 0;

  /// Starts with the responder only, then points peers at its port.
  explicit Service(config::Config cfg, std::string sysfs = "/nonexistent") {
    StartOptions o;
    o.sysfs_root = std::move(sysfs);
    o.session_factory = testing::FakeFactory(fake);
    o.responder_io_timeout = milliseconds(300);
    auto st = svc.Start(BaseConfig(), o);
    EXPECT_TRUE(st.ok()) << st.error().message;
    port = svc.ResponderPorts().at(0);
    EXPECT_TRUE(Apply(std::move(cfg)).ok());
  }
  Status Apply(config::Config cfg) {
    for (auto& p : cfg.peers) p.port = port;
    return svc.ApplyConfig(cfg);
  }
  bool WaitFor(const std::string& series, double at_least, milliseconds limit = milliseconds(5000)) {
    auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      if (Value(Text(svc), series) >= at_least) return true;
      std::this_thread::sleep_for(milliseconds(10));
    }
    return false;
  }
};

config::Config TwoPairConfig() {
  config::Config cfg = BaseConfig();
  cfg.peers = {config::Peer{"self", "127.0.0.1", 0, {{"zone", "z1"}}}};
  cfg.modules["bw"] = Mod(config::ProbeType::kWriteBw, milliseconds(200));
  cfg.modules["lat"] = Mod(config::ProbeType::kSendLat, milliseconds(200));
  return cfg;
}

TEST(ProberServiceTest, ProbesOnScheduleAndServesCachedMetrics) {
  Service s(TwoPairConfig());
  std::string t = Text(s.svc);
  // Pre-created before any probe ran.
  EXPECT_GE(Value(t, "rxe_probes_total{module=\"bw\",peer=\"self\",zone=\"z1\"}"), 0) << t;
  EXPECT_GE(Value(t, "rxe_probe_failures_total{module=\"lat\",peer=\"self\",zone=\"z1\",reason=\"timeout\"}"), 0);
  ASSERT_TRUE(s.WaitFor("rxe_probes_total{module=\"bw\",peer=\"self\",zone=\"z1\"}", 2));
  ASSERT_TRUE(s.WaitFor("rxe_probes_total{module=\"lat\",peer=\"self\",zone=\"z1\"}", 2));
  t = Text(s.svc);
  EXPECT_EQ(Value(t, "rxe_probe_success{module=\"bw\",peer=\"self\",zone=\"z1\"}"), 1);
  EXPECT_GT(Value(t, "rxe_probe_bandwidth_bytes_per_second{module=\"bw\",peer=\"self\",zone=\"z1\"}"), 0);
  EXPECT_GT(Value(t, "rxe_probe_latency_seconds_count{module=\"lat\",peer=\"self\",zone=\"z1\"}"), 0);
  EXPECT_GE(Value(t, "rxe_responder_sessions_total"), 4);
  EXPECT_NE(s.svc.DebugJson().find("\"module\":\"bw\""), std::string::npos);
  // Scrapes do not start probes: the count does not follow the scrape rate.
  double before = Value(Text(s.svc), "rxe_probes_total{module=\"bw\",peer=\"self\",zone=\"z1\"}");
  for (int i = 0; i < 50; ++i) (void)s.svc.Collect();
  EXPECT_LE(Value(Text(s.svc), "rxe_probes_total{module=\"bw\",peer=\"self\",zone=\"z1\"}"), before + 1);
}

TEST(ProberServiceTest, ReloadAddsAndRemovesSeries) {
  Service s(TwoPairConfig());
  ASSERT_TRUE(s.WaitFor("rxe_probes_total{module=\"lat\",peer=\"self\",zone=\"z1\"}", 1));
  config::Config cfg = TwoPairConfig();
  cfg.modules.erase("lat");
  cfg.peers.push_back(config::Peer{"other", "127.0.0.1", 0, {}});
  ASSERT_TRUE(s.Apply(cfg).ok());
  std::string t = Text(s.svc);
  EXPECT_EQ(t.find("module=\"lat\""), std::string::npos) << "stale series after reload";
  EXPECT_GE(Value(t, "rxe_probes_total{module=\"bw\",peer=\"other\"}"), 0);
  ASSERT_TRUE(s.WaitFor("rxe_probes_total{module=\"bw\",peer=\"other\"}", 1));
}

TEST(ProberServiceTest, FailuresAreCountedByReason) {
  config::Config cfg = TwoPairConfig();
  cfg.modules.erase("lat");
  cfg.modules["bw"].mtu = 4096;  // fake active MTU is 1024
  Service s(cfg);
  ASSERT_TRUE(s.WaitFor(
      "rxe_probe_failures_total{module=\"bw\",peer=\"self\",zone=\"z1\",reason=\"mtu_above_active\"}", 1));
  EXPECT_EQ(Value(Text(s.svc), "rxe_probe_success{module=\"bw\",peer=\"self\",zone=\"z1\"}"), 0);
  EXPECT_NE(s.svc.DebugJson().find("mtu_above_active"), std::string::npos);
}

TEST(ProberServiceTest, StopIsQuickWithRunningProbes) {
  config::Config cfg = TwoPairConfig();
  cfg.modules["bw"].timeout = milliseconds(10000);
  Service s(cfg);
  s.fake->client_run = std::chrono::seconds(8);
  ASSERT_TRUE(s.WaitFor("rxe_responder_active_sessions", 1));
  auto start = Clock::now();
  s.svc.Stop();
  EXPECT_LT(Clock::now() - start, milliseconds(1000));
  EXPECT_TRUE(s.svc.ResponderPorts().empty());
  EXPECT_FALSE(Text(s.svc).empty());  // cached results still served
}

TEST(ProberServiceTest, StartErrorsLeaveNothingRunning) {
  ProbeService svc;
  config::Config cfg = BaseConfig();
  cfg.prober.psk_file = "/nonexistent/psk";
  auto st = svc.Start(cfg);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("prober.psk_file"), std::string::npos);
  EXPECT_TRUE(svc.ResponderPorts().empty());

  Service first(TwoPairConfig());
  cfg = BaseConfig();
  cfg.responder.listen_addresses = {"127.0.0.1:" + std::to_string(first.port)};
  st = svc.Start(cfg);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(svc.ResponderPorts().empty());

  cfg = BaseConfig();
  cfg.responder.psk_file = "/nonexistent/psk";
  EXPECT_FALSE(svc.Start(cfg).ok());
}

TEST(ProberServiceTest, ReloadErrorKeepsRunningConfig) {
  Service s(TwoPairConfig());
  config::Config bad = TwoPairConfig();
  bad.responder.psk_file = "/nonexistent/psk";
  EXPECT_FALSE(s.Apply(bad).ok());
  EXPECT_EQ(s.svc.ResponderPorts().size(), 1u);
  ASSERT_TRUE(s.WaitFor("rxe_probes_total{module=\"bw\",peer=\"self\",zone=\"z1\"}", 1));
}

TEST(ProberServiceTest, AttributesCounterDeltasOfLoopbackProbes) {
  std::string root = ::testing::TempDir() + "/svc_sys";
  std::string dir = root + "/class/infiniband/rxe0/ports/1/hw_counters";
  std::filesystem::create_directories(dir);
  std::atomic<int> bumps{0};
  auto write = [&](int dup) {
    for (auto name : kAttributedCounters) std::ofstream(dir + "/" + std::string(name)) << "0\n";
    std::ofstream(dir + "/duplicate_request") << dup << "\n";
  };
  write(0);
  config::Config cfg = TwoPairConfig();
  cfg.modules.erase("lat");
  cfg.prober.max_concurrent = 1;
  Service s(cfg, root);
  s.fake->on_client_run = [&] { write(3 * ++bumps); };  // +3 per probe
  ASSERT_TRUE(s.WaitFor(
      "rxe_probe_attributed_hw_stat_total{module=\"bw\",peer=\"self\",zone=\"z1\",counter=\"duplicate_request\"}", 3));
  EXPECT_NE(s.svc.DebugJson().find("\"counters_attributed\":true"), std::string::npos);
}

TEST(ProberServiceTest, ResponderCanBeDisabled) {
  ProbeService svc;
  config::Config cfg = BaseConfig();
  cfg.responder.enabled = false;
  StartOptions o;
  o.session_factory = testing::FakeFactory(std::make_shared<testing::FakeBehavior>());
  ASSERT_TRUE(svc.Start(cfg, o).ok());
  EXPECT_TRUE(svc.ResponderPorts().empty());
  EXPECT_EQ(prometheus::TextSerializer().Serialize(svc.Collect()).find("rxe_responder_"), std::string::npos);
}

}  // namespace
}  // namespace rxe::probes
