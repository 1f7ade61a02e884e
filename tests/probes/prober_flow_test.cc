// Prober client flows against an in-process responder with fake RDMA sessions.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "probes/control_io.h"
#include "probes/prober.h"
#include "probes/responder.h"
#include "tests/probes/prober_test_fakes.h"

namespace rxe::probes {
namespace {

using testing::FakeBehavior;
using std::chrono::milliseconds;

struct Env {
  std::shared_ptr<FakeBehavior> fake = std::make_shared<FakeBehavior>();
  DeviceActivity activity;
  Responder responder{testing::FakeFactory(fake), &activity};
  uint16_t port = 0;
  std::string sysfs = ::testing::TempDir() + "/prober_flow_sys";

  Env() {
    ResponderSettings s;
    s.listen_addresses = {"127.0.0.1:0"};
    s.acl = *SourceAcl::Make({"127.0.0.1"}, {});
    EXPECT_TRUE(responder.Start(std::move(s)).ok());
    port = responder.BoundPorts().at(0);
  }
  ProberEnv Prober() {
    ProberEnv e;
    e.factory = testing::FakeFactory(fake);
    e.activity = &activity;
    e.sysfs_root = sysfs;
    return e;
  }
  ProbeOutcome Run(const config::Module& m, uint16_t p = 0, std::string address = "127.0.0.1") {
    std::atomic<bool> cancel{false};
    return RunProbe(m, config::Peer{"peer", std::move(address), p ? p : port, {}}, Prober(), cancel);
  }
};

config::Module Module(config::ProbeType t = config::ProbeType::kWriteBw) {
  config::Module m;
  m.name = "m";
  m.type = t;
  m.timeout = std::chrono::seconds(3);
  m.size = 1024;
  return m;
}

FailureReason ReasonOf(const ProbeOutcome& o) {
  EXPECT_FALSE(o.success);
  return o.failure ? o.failure->reason : FailureReason::kInternal;
}

TEST(ProberFlowTest, ConnectRefused) {
  Env env;
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);  // nothing listens there now
  EXPECT_EQ(ReasonOf(env.Run(Module(), ntohs(a.sin_port))), FailureReason::kConnectRefused);
}

TEST(ProberFlowTest, UnresolvableNameIsNoRoute) {
  Env env;
  EXPECT_EQ(ReasonOf(env.Run(Module(), 19792, "no-such-host.invalid")), FailureReason::kNoRoute);
}

TEST(ProberFlowTest, SilentServerTimesOutAtModuleTimeout) {
  Env env;
  control::Fd l(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(l.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(l.get(), 4), 0);
  socklen_t len = sizeof a;
  ::getsockname(l.get(), reinterpret_cast<sockaddr*>(&a), &len);
  config::Module m = Module();
  m.timeout = milliseconds(300);
  auto start = Clock::now();
  auto out = env.Run(m, ntohs(a.sin_port));  // accepted by the backlog, never answered
  EXPECT_EQ(ReasonOf(out), FailureReason::kTimeout);
  EXPECT_LT(Clock::now() - start, milliseconds(900));
}

TEST(ProberFlowTest, GarbageServerIsProtocolError) {
  Env env;
  control::Fd l(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(l.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(l.get(), 4), 0);
  socklen_t len = sizeof a;
  ::getsockname(l.get(), reinterpret_cast<sockaddr*>(&a), &len);
  std::thread server([&] {
    control::Fd c(::accept(l.get(), nullptr, nullptr));
    const char junk[] = "SSH-2.0-OpenSSH_9.2\r\n";
    ::send(c.get(), junk, sizeof junk - 1, MSG_NOSIGNAL);
    std::this_thread::sleep_for(milliseconds(200));
  });
  EXPECT_EQ(ReasonOf(env.Run(Module(), ntohs(a.sin_port))), FailureReason::kProtocolError);
  server.join();
}

TEST(ProberFlowTest, MtuAboveActiveAndPathMtu) {
  Env env;
  config::Module m = Module();
  m.mtu = 4096;  // fake active MTU is 1024 on both sides
  auto out = env.Run(m);
  EXPECT_EQ(ReasonOf(out), FailureReason::kMtuAboveActive);
  EXPECT_NE(out.failure->detail.find("1024"), std::string::npos);
  m.mtu = 512;
  out = env.Run(m);
  ASSERT_TRUE(out.success);
  EXPECT_EQ(out.path_mtu, 512u);
  EXPECT_EQ(env.fake->last_path_mtu, 512u);
  m.mtu.reset();
  EXPECT_EQ(env.Run(m).path_mtu, 1024u);
}

TEST(ProberFlowTest, LatencyProbeAndParams) {
  Env env;
  config::Module m = Module(config::ProbeType::kSendLat);
  m.size = 0;
  m.iterations = 100;
  auto out = env.Run(m);
  ASSERT_TRUE(out.success);
  EXPECT_EQ(out.params.size, 2u);  // perftest latency default
  EXPECT_EQ(out.params.tx_depth, 1u);
  EXPECT_EQ(std::get<LatencyMeasurement>(*out.measurement).rtt_seconds.size(), 100u);
  EXPECT_EQ(ParamsFor(Module()).tx_depth, 128u);
  config::Module bw = Module();
  bw.size = 0;
  EXPECT_EQ(ParamsFor(bw).size, 65536u);
  EXPECT_EQ(ParamsFor(bw).qp_timeout, 14u);  // perftest's -u default
  bw.qp_timeout = 18;
  EXPECT_EQ(ParamsFor(bw).qp_timeout, 18u);
}

TEST(ProberFlowTest, UseEventReachesTheResponder) {
  Env env;
  config::Module m = Module(config::ProbeType::kSendLat);
  m.iterations = 100;
  EXPECT_FALSE(ParamsFor(m).use_event);
  m.use_event = true;
  EXPECT_TRUE(ParamsFor(m).use_event);
  auto out = env.Run(m);
  ASSERT_TRUE(out.success) << (out.failure ? out.failure->detail : "");
  EXPECT_TRUE(out.params.use_event);
  EXPECT_EQ(env.fake->responder_use_event.load(), 1);  // carried in the HELLO
  m.use_event = false;
  ASSERT_TRUE(env.Run(m).success);
  EXPECT_EQ(env.fake->responder_use_event.load(), 0);
}

TEST(ProberFlowTest, ResponderRefusesUseEventOutsideSendLat) {
  Env env;
  config::Module m = Module(config::ProbeType::kWriteLat);  // the config loader forbids this
  m.use_event = true;
  auto out = env.Run(m);
  EXPECT_EQ(ReasonOf(out), FailureReason::kRejected);
  ASSERT_TRUE(out.failure.has_value());
  EXPECT_NE(out.failure->detail.find("use_event"), std::string::npos) << out.failure->detail;
  EXPECT_EQ(env.fake->responder_use_event.load(), -1);  // no responder session was created
}

TEST(ProberFlowTest, ClientFailurePassesThroughAndResponderCleansUp) {
  Env env;
  env.fake->run_failure = ProbeFailure{FailureReason::kWcError, "wr 3", "IBV_WC_RETRY_EXC_ERR"};
  auto out = env.Run(Module());
  EXPECT_EQ(ReasonOf(out), FailureReason::kWcError);
  EXPECT_EQ(out.failure->wc_status, "IBV_WC_RETRY_EXC_ERR");
  for (int i = 0; i < 200 && env.fake->live > 0; ++i) std::this_thread::sleep_for(milliseconds(5));
  EXPECT_EQ(env.fake->live, 0);
  EXPECT_EQ(env.fake->responder_done, 1);  // the DONE reached the responder
}

TEST(ProberFlowTest, DataPhaseTimesAreRecorded) {
  Env env;
  env.fake->client_run = milliseconds(200);
  auto out = env.Run(Module());
  ASSERT_TRUE(out.success);
  ASSERT_TRUE(out.data_start && out.data_end);
  EXPECT_GE(*out.data_end - *out.data_start, milliseconds(200));
  EXPECT_LE(*out.data_end, out.duration);
  EXPECT_EQ(out.responder_detail, "");
  auto refused = env.Run(Module(), 1);  // never reached the data phase
  EXPECT_FALSE(refused.data_start.has_value());
}

TEST(ProberFlowTest, PeerGoneAfterDataPhaseKeepsTheMeasurement) {
  // The responder vanishes after the data was moved (e.g. its host died during the DONE
  // exchange): the client's measurement stands, the detail says the DONE never came.
  Env env;
  env.fake->on_client_run = [&] { env.responder.RequestStop(); };
  env.fake->client_run = milliseconds(200);  // the responder's sessions close meanwhile
  auto out = env.Run(Module());
  ASSERT_TRUE(out.success) << (out.failure ? out.failure->detail : "");
  EXPECT_TRUE(out.measurement.has_value());
  EXPECT_NE(out.responder_detail.find("no DONE from the responder"), std::string::npos)
      << out.responder_detail;
}

TEST(ProberFlowTest, CancelStopsQuickly) {
  Env env;
  env.fake->client_run = std::chrono::seconds(5);
  std::atomic<bool> cancel{false};
  ProbeOutcome out;
  std::thread t([&] {
    out = RunProbe(Module(), config::Peer{"p", "127.0.0.1", env.port, {}}, env.Prober(), cancel);
  });
  std::this_thread::sleep_for(milliseconds(100));
  auto start = Clock::now();
  cancel = true;
  t.join();
  EXPECT_LT(Clock::now() - start, milliseconds(500));
  EXPECT_TRUE(out.cancelled);
}

void WriteCounters(const std::string& root, uint64_t dup) {
  std::string dir = root + "/class/infiniband/rxe0/ports/1/hw_counters";
  std::filesystem::create_directories(dir);
  for (auto name : kAttributedCounters) std::ofstream(dir + "/" + std::string(name)) << "5\n";
  std::ofstream(dir + "/duplicate_request") << dup << "\n";
}

TEST(ProberFlowTest, CounterDeltasAttributedWhenAlone) {
  Env env;
  WriteCounters(env.sysfs, 100);
  env.fake->on_client_run = [&] { WriteCounters(env.sysfs, 112); };
  auto out = env.Run(Module());  // loopback: the responder half shares the probe's group
  ASSERT_TRUE(out.success);
  EXPECT_TRUE(out.counters_attributed);
  EXPECT_EQ(out.counter_deltas.at("duplicate_request"), 12u);
  EXPECT_EQ(out.counter_deltas.at("rcvd_seq_err"), 0u);

  // Another prober's session on the same device: no attribution.
  WriteCounters(env.sysfs, 100);
  env.fake->on_client_run = [&] {
    auto tok = env.activity.Enter("rxe0", 0xdead);
    WriteCounters(env.sysfs, 150);
    env.activity.Exit(tok);
  };
  out = env.Run(Module());
  ASSERT_TRUE(out.success);
  EXPECT_FALSE(out.counters_attributed);
  EXPECT_TRUE(out.counter_deltas.empty());
}

TEST(ProberFlowTest, CounterHelpers) {
  EXPECT_EQ(CounterDeltas({{"a", 5}, {"b", 9}}, {{"a", 7}, {"b", 3}, {"c", 1}}),
            (CounterSnapshot{{"a", 2}, {"b", 0}}));
  EXPECT_TRUE(ReadHwCounters("/nonexistent", "rxe0").empty());
  EXPECT_TRUE(ReadHwCounters("/sys", "../../etc").empty());
  DeviceActivity a;
  auto t1 = a.Enter("rxe0", 1);
  auto t2 = a.Enter("rxe1", 2);
  auto t3 = a.Enter("rxe0", 1);  // same group: not a disturbance
  EXPECT_EQ(a.ActiveOn("rxe0"), 2u);
  EXPECT_TRUE(a.Exit(t3));
  EXPECT_TRUE(a.Exit(t2));
  auto t4 = a.Enter("rxe0", 3);
  EXPECT_FALSE(a.Exit(t4));
  EXPECT_FALSE(a.Exit(t1));
  EXPECT_FALSE(a.Exit(t1));  // unknown token
}

}  // namespace
}  // namespace rxe::probes
