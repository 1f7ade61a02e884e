// Responder admission and caps over real loopback TCP with a fake RDMA session.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "probes/control_io.h"
#include "probes/prober.h"
#include "probes/responder.h"
#include "tests/probes/prober_test_fakes.h"

namespace rxe::probes {
namespace {

using control::RejectReason;
using testing::FakeBehavior;

struct Fixture {
  std::shared_ptr<FakeBehavior> fake = std::make_shared<FakeBehavior>();
  DeviceActivity activity;
  Responder responder{testing::FakeFactory(fake), &activity};
  uint16_t port = 0;

  explicit Fixture(ResponderSettings s = Defaults()) {
    s.listen_addresses = {"127.0.0.1:0"};
    auto st = responder.Start(std::move(s));
    EXPECT_TRUE(st.ok()) << st.error().message;
    port = responder.BoundPorts().at(0);
  }
  static ResponderSettings Defaults() {
    ResponderSettings s;
    s.acl = *SourceAcl::Make({"127.0.0.0/8"}, {});
    s.io_timeout = std::chrono::milliseconds(300);
    return s;
  }
  config::Peer Peer() const { return config::Peer{"self", "127.0.0.1", port, {}}; }
  ProberEnv Env(std::string psk = "") const {
    ProberEnv env;
    env.factory = testing::FakeFactory(fake);
    env.psk = std::move(psk);
    return env;
  }
  uint64_t Rejections(RejectReason r) const { return responder.Stats().rejections.at(r); }
};

config::Module BwModule() {
  config::Module m;
  m.name = "bw";
  m.type = config::ProbeType::kWriteBw;
  m.timeout = std::chrono::seconds(5);
  m.size = 4096;
  return m;
}

/// The client may finish before the responder thread has counted: poll.
template <typename Pred>
bool WaitUntil(Pred pred, std::chrono::milliseconds limit = std::chrono::milliseconds(2000)) {
  auto deadline = Clock::now() + limit;
  while (!pred()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

ProbeOutcome Probe(const Fixture& f, const config::Module& m = BwModule(), std::string psk = "") {
  std::atomic<bool> cancel{false};
  return RunProbe(m, f.Peer(), f.Env(std::move(psk)), cancel);
}

/// Connects, writes `bytes`, returns the first message the responder answers.
control::IoResult<control::Message> RawExchange(uint16_t port, const std::vector<uint8_t>& bytes) {
  auto conn = control::ConnectTcp("127.0.0.1", port, Clock::now() + std::chrono::seconds(2));
  auto fd = std::move(std::get<control::Fd>(conn));
  if (!bytes.empty()) ::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
  return control::ReceiveMessage(fd.get(), 4096, Clock::now() + std::chrono::seconds(3));
}

RejectReason RejectOf(const control::IoResult<control::Message>& r) {
  const auto* m = std::get_if<control::Message>(&r);
  EXPECT_NE(m, nullptr);
  if (m == nullptr || !std::holds_alternative<control::Reject>(*m)) return RejectReason::kMalformed;
  return std::get<control::Reject>(*m).reason;
}

TEST(ResponderFlowTest, HappyPathFreesEverything) {
  Fixture f;
  auto out = Probe(f);
  ASSERT_TRUE(out.success) << out.failure->detail;
  EXPECT_EQ(out.device, "rxe0");
  EXPECT_EQ(out.path_mtu, 1024u);
  ASSERT_TRUE(out.measurement.has_value());
  EXPECT_EQ(std::get<BandwidthMeasurement>(*out.measurement).bytes, 4096u * 100);
  EXPECT_TRUE(WaitUntil([&] { return f.fake->live == 0; }));
  EXPECT_EQ(f.fake->created, 2);  // client + responder
  EXPECT_EQ(f.fake->responder_done, 1);
  EXPECT_EQ(f.fake->last_local_ip, "127.0.0.1");
  EXPECT_TRUE(WaitUntil([&] { return f.responder.Stats().active_sessions == 0; }));
  auto st = f.responder.Stats();
  EXPECT_EQ(st.sessions_total, 1u);
  EXPECT_EQ(st.active_sessions, 0u);
  for (auto [r, n] : st.rejections) EXPECT_EQ(n, 0u) << control::RejectReasonName(r);
  EXPECT_EQ(st.rejections.size(), std::size(control::kAllRejectReasons));
}

TEST(ResponderFlowTest, SourceNotAllowed) {
  ResponderSettings s = Fixture::Defaults();
  s.acl = *SourceAcl::Make({"10.0.0.0/8"}, {"192.0.2.7"});
  Fixture f(s);
  auto out = Probe(f);
  ASSERT_FALSE(out.success);
  EXPECT_EQ(out.failure->reason, FailureReason::kRejected);
  EXPECT_NE(out.failure->detail.find("not_allowed"), std::string::npos) << out.failure->detail;
  EXPECT_TRUE(WaitUntil([&] { return f.Rejections(RejectReason::kNotAllowed) == 1; }));
  EXPECT_EQ(f.fake->created, 0);
}

TEST(ResponderFlowTest, PresharedKeyMatrix) {
  ResponderSettings s = Fixture::Defaults();
  s.psk = "sekrit";
  Fixture f(s);
  EXPECT_TRUE(Probe(f, BwModule(), "sekrit").success);

  auto wrong = Probe(f, BwModule(), "other");
  ASSERT_FALSE(wrong.success);
  EXPECT_EQ(wrong.failure->reason, FailureReason::kAuthFailed);  // responder's proof fails first

  auto none = Probe(f, BwModule(), "");
  ASSERT_FALSE(none.success);
  EXPECT_EQ(none.failure->reason, FailureReason::kAuthFailed);
  EXPECT_TRUE(WaitUntil([&] { return f.Rejections(RejectReason::kAuthFailed) == 2; }));

  Fixture open;  // responder without a key: a client with a key refuses it
  auto unauth = Probe(open, BwModule(), "sekrit");
  ASSERT_FALSE(unauth.success);
  EXPECT_EQ(unauth.failure->reason, FailureReason::kAuthFailed);
}

TEST(ResponderFlowTest, BusyWhenMaxSessionsReached) {
  ResponderSettings s = Fixture::Defaults();
  s.max_sessions = 1;
  Fixture f(s);
  f.fake->client_run = std::chrono::milliseconds(600);
  ProbeOutcome first;
  std::thread t([&] { first = Probe(f); });
  auto deadline = Clock::now() + std::chrono::seconds(2);
  while (f.responder.Stats().active_sessions == 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  auto second = Probe(f);
  t.join();
  EXPECT_TRUE(first.success);
  ASSERT_FALSE(second.success);
  EXPECT_EQ(second.failure->reason, FailureReason::kRejected);
  EXPECT_NE(second.failure->detail.find("busy"), std::string::npos);
  EXPECT_TRUE(WaitUntil([&] { return f.Rejections(RejectReason::kBusy) == 1; }));
}

TEST(ResponderFlowTest, MalformedInputsGetSpecificRejects) {
  Fixture f;
  std::vector<uint8_t> oversized{'R', 'X', 'E', 'P', 1, 1, 0, 0, 0, 1, 0, 0};  // 65536 > 4096
  EXPECT_EQ(RejectOf(RawExchange(f.port, oversized)), RejectReason::kOversized);
  std::vector<uint8_t> version{'R', 'X', 'E', 'P', 9, 1, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(RejectOf(RawExchange(f.port, version)), RejectReason::kBadVersion);
  std::vector<uint8_t> garbage{'G', 'E', 'T', ' ', '/', ' ', 'H', 'T', 'T', 'P', '/', '1'};
  EXPECT_EQ(RejectOf(RawExchange(f.port, garbage)), RejectReason::kMalformed);
  EXPECT_EQ(RejectOf(RawExchange(f.port, control::Encode(control::Message{control::Ready{}}))),
            RejectReason::kMalformed);  // not a HELLO
  control::Hello h;
  h.params.size = 1 << 23;  // within the protocol, above max_buffer_bytes
  EXPECT_EQ(RejectOf(RawExchange(f.port, control::Encode(control::Message{h}))),
            RejectReason::kBadParams);
  auto frame = control::Encode(control::Message{control::Hello{}});
  frame[12 + 32 + 5 + 3] = 0;  // qps = 0 (low byte of the qps field)
  EXPECT_EQ(RejectOf(RawExchange(f.port, frame)), RejectReason::kBadParams);
  EXPECT_EQ(f.Rejections(RejectReason::kOversized), 1u);
  EXPECT_EQ(f.Rejections(RejectReason::kBadVersion), 1u);
  EXPECT_EQ(f.Rejections(RejectReason::kMalformed), 2u);
  EXPECT_EQ(f.Rejections(RejectReason::kBadParams), 2u);
}

/// Connects, writes `bytes`, then closes (half_close: only the write side, so the
/// REJECT can still be read; it is returned).
control::IoResult<control::Message> SendAndClose(uint16_t port, const std::vector<uint8_t>& bytes,
                                                 bool half_close) {
  auto conn = control::ConnectTcp("127.0.0.1", port, Clock::now() + std::chrono::seconds(2));
  auto fd = std::move(std::get<control::Fd>(conn));
  if (!bytes.empty()) ::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (!half_close) return control::IoError{control::IoErrorCode::kClosed, 0, {}, "closed by the test"};
  ::shutdown(fd.get(), SHUT_WR);
  return control::ReceiveMessage(fd.get(), 4096, Clock::now() + std::chrono::seconds(3));
}

// A frame cut short by EOF is a truncated (malformed) message: rejected and counted,
// whether the client waits for the REJECT or is gone. A bare connect + close is no message.
TEST(ResponderFlowTest, FrameCutByEofIsCountedMalformed) {
  Fixture f;
  auto hello = control::Encode(control::Message{control::Hello{}});
  const std::vector<uint8_t> half_header(hello.begin(), hello.begin() + 5);
  const std::vector<uint8_t> header_only(hello.begin(), hello.begin() + control::kHeaderBytes);
  const std::vector<uint8_t> half_body(hello.begin(), hello.begin() + control::kHeaderBytes + 20);
  for (const auto* bytes : {&half_header, &header_only, &half_body}) {
    EXPECT_EQ(RejectOf(SendAndClose(f.port, *bytes, /*half_close=*/true)), RejectReason::kMalformed);
  }
  EXPECT_EQ(f.Rejections(RejectReason::kMalformed), 3u);
  for (const auto* bytes : {&half_header, &header_only, &half_body}) {
    (void)SendAndClose(f.port, *bytes, /*half_close=*/false);
  }
  EXPECT_TRUE(WaitUntil([&] { return f.Rejections(RejectReason::kMalformed) == 6; }));
  (void)SendAndClose(f.port, {}, /*half_close=*/false);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto st = f.responder.Stats();
  uint64_t total = 0;
  for (auto [r, n] : st.rejections) total += n;
  EXPECT_EQ(total, 6u);  // the bare connect + close is not counted
  EXPECT_EQ(st.rejections.at(RejectReason::kTimeout), 0u);
}

TEST(ResponderFlowTest, IdleClientDroppedAfterIoTimeout) {
  Fixture f;
  auto start = Clock::now();
  EXPECT_EQ(RejectOf(RawExchange(f.port, {})), RejectReason::kTimeout);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(f.Rejections(RejectReason::kTimeout), 1u);
}

/// A TCP connection to 127.0.0.1:port from `source` (any 127/8 address is local).
control::Fd ConnectFrom(const char* source, uint16_t port) {
  control::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  ::inet_pton(AF_INET, source, &a.sin_addr);
  EXPECT_EQ(::bind(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << strerror(errno);
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  EXPECT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << strerror(errno);
  return fd;
}

// Issue 17 item 4: 8 silent connections from an unlisted address used to hold every
// handshake slot for the I/O timeout (4.7 s), and an allowed peer got REJECT busy. Now the
// accept thread rejects strangers at once, before any slot.
TEST(ResponderFlowTest, SilentStrangersNeverStarveAnAllowedPeer) {
  ResponderSettings s = Fixture::Defaults();
  s.acl = *SourceAcl::Make({"127.0.0.1/32"}, {});
  s.io_timeout = std::chrono::seconds(5);  // the daemon's
  Fixture f(s);
  constexpr int kStrangers = 3 * (4 + 4);  // three times max_sessions + extra_handshakes
  std::vector<control::Fd> strangers;
  for (int i = 0; i < kStrangers; ++i) strangers.push_back(ConnectFrom("127.0.0.2", f.port));
  // Each is answered without a word from it (before: only after the 5 s I/O timeout).
  ASSERT_TRUE(WaitUntil([&] { return f.Rejections(RejectReason::kNotAllowed) == kStrangers; }))
      << f.Rejections(RejectReason::kNotAllowed);
  auto first = control::ReceiveMessage(strangers[0].get(), 4096, Clock::now() + std::chrono::seconds(2));
  EXPECT_EQ(RejectOf(first), RejectReason::kNotAllowed);

  auto out = Probe(f);  // the strangers are still connected
  EXPECT_TRUE(out.success) << out.failure->detail;
  EXPECT_EQ(f.Rejections(RejectReason::kBusy), 0u);
  EXPECT_EQ(f.Rejections(RejectReason::kNotAllowed), static_cast<uint64_t>(kStrangers));
  EXPECT_EQ(f.fake->created, 2);  // no stranger got near a session
}

TEST(ResponderFlowTest, SilentAllowedClientGetsTheShortHelloDeadline) {
  ResponderSettings s = Fixture::Defaults();
  s.io_timeout = std::chrono::seconds(5);
  s.hello_timeout = std::chrono::milliseconds(200);
  Fixture f(s);
  auto start = Clock::now();
  EXPECT_EQ(RejectOf(RawExchange(f.port, {})), RejectReason::kTimeout);  // RawExchange waits 3 s
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(f.Rejections(RejectReason::kTimeout), 1u);
}

TEST(ResponderFlowTest, SetupFailureIsReported) {
  Fixture f;
  auto client_fake = std::make_shared<FakeBehavior>();
  f.fake->create_failure = ProbeFailure{FailureReason::kNoGid, "no RoCE v2 GID", ""};
  ProberEnv env = f.Env();
  env.factory = testing::FakeFactory(client_fake);
  std::atomic<bool> cancel{false};
  auto out = RunProbe(BwModule(), f.Peer(), env, cancel);
  ASSERT_FALSE(out.success);
  EXPECT_EQ(out.failure->reason, FailureReason::kRejected);
  EXPECT_NE(out.failure->detail.find("setup_failed"), std::string::npos);
  EXPECT_EQ(f.Rejections(RejectReason::kSetupFailed), 1u);
  EXPECT_TRUE(WaitUntil([&] { return f.responder.Stats().active_sessions == 0; }));
}

TEST(ResponderFlowTest, BadConnectionsDoNotDisturbAGoodSession) {
  Fixture f;
  f.fake->client_run = std::chrono::milliseconds(400);
  ProbeOutcome good;
  std::thread t([&] { good = Probe(f); });
  ASSERT_TRUE(WaitUntil([&] { return f.responder.Stats().active_sessions == 1; }));
  for (int i = 0; i < 10; ++i) {
    std::vector<uint8_t> junk(12, static_cast<uint8_t>(i));
    auto r = RawExchange(f.port, junk);  // a flood may also meet the handshake cap (busy)
    RejectReason why = RejectOf(r);
    EXPECT_TRUE(why == RejectReason::kMalformed || why == RejectReason::kBusy);
  }
  t.join();
  EXPECT_TRUE(good.success) << (good.failure ? good.failure->detail : "");
  EXPECT_TRUE(WaitUntil([&] {
    return f.Rejections(RejectReason::kMalformed) + f.Rejections(RejectReason::kBusy) == 10;
  }));
  EXPECT_GE(f.Rejections(RejectReason::kMalformed), 5u);
}

TEST(ResponderFlowTest, SessionLifetimeIsCapped) {
  ResponderSettings s = Fixture::Defaults();
  s.max_session_duration = std::chrono::milliseconds(300);
  Fixture f(s);
  f.fake->client_run = std::chrono::milliseconds(1500);
  config::Module m = BwModule();
  m.duration = std::chrono::milliseconds(200);  // within the cap; the fake client overruns it
  auto start = Clock::now();
  std::thread t([&] { (void)Probe(f, m); });
  auto deadline = start + std::chrono::seconds(1);
  while (f.responder.Stats().sessions_total == 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  while (f.responder.Stats().active_sessions > 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(f.responder.Stats().active_sessions, 0u);
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(900));
  t.join();
}

TEST(ResponderFlowTest, WorkerThatIgnoresDoneIsCancelledAfterAGrace) {
  Fixture f;  // max_session_duration 30 s
  f.fake->responder_ignores_done = true;
  auto start = Clock::now();
  EXPECT_TRUE(Probe(f).success);
  EXPECT_TRUE(WaitUntil([&] { return f.responder.Stats().active_sessions == 0; }, std::chrono::milliseconds(3000)));
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(2500));
}

TEST(ResponderFlowTest, StopIsQuickWithARunningSession) {
  Fixture f;
  f.fake->client_run = std::chrono::milliseconds(1500);
  std::thread t([&] { (void)Probe(f); });
  while (f.responder.Stats().active_sessions == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto start = Clock::now();
  f.responder.Stop();
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));
  t.join();
}

TEST(ResponderFlowTest, StartFailsWhenPortInUse) {
  Fixture f;
  Responder second(testing::FakeFactory(f.fake), nullptr);
  ResponderSettings s = Fixture::Defaults();
  s.listen_addresses = {"127.0.0.1:" + std::to_string(f.port)};
  EXPECT_FALSE(second.Start(s).ok());
  EXPECT_FALSE(second.running());
  s.listen_addresses = {"bogus"};
  EXPECT_FALSE(second.Start(s).ok());
}

}  // namespace
}  // namespace rxe::probes
