// ud_ping address exchange over the real control protocol (loopback TCP): a ud_ping
// "probe" only fetches the responder's UD endpoint, authenticated like any session,
// without a session slot or an RDMA session.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include "probes/prober.h"
#include "probes/responder.h"
#include "tests/probes/prober_test_fakes.h"

namespace rxe::probes {
namespace {

control::UdAddress Address() {
  control::UdAddress a;
  a.gid[10] = 0xff;
  a.gid[11] = 0xff;
  a.gid[12] = 127;
  a.gid[15] = 1;
  a.qpn = 4242;
  a.qkey = 0x11111111;
  return a;
}

class UdAddressFlow : public ::testing::Test {
 protected:
  void StartResponder(std::string psk) {
    ResponderSettings s;
    s.acl = *SourceAcl::Make({"127.0.0.0/8"}, {});
    s.io_timeout = std::chrono::milliseconds(300);
    s.psk = std::move(psk);
    s.listen_addresses = {"127.0.0.1:0"};
    ASSERT_TRUE(responder_.Start(std::move(s)).ok());
  }
  ProbeOutcome Query(std::string psk) {
    config::Module m;
    m.name = "mesh";
    m.type = config::ProbeType::kUdPing;
    m.timeout = std::chrono::seconds(3);
    ProberEnv env;
    env.factory = testing::FakeFactory(fake_);
    env.psk = std::move(psk);
    std::atomic<bool> cancel{false};
    return RunProbe(m, config::Peer{"self", "127.0.0.1", responder_.BoundPorts().at(0), {}}, env,
                    cancel);
  }
  std::shared_ptr<testing::FakeBehavior> fake_ = std::make_shared<testing::FakeBehavior>();
  Responder responder_{testing::FakeFactory(fake_), nullptr};
};

TEST_F(UdAddressFlow, ReturnsTheEndpointOfTheQueriedLocalAddress) {
  StartResponder("");
  in_addr seen{};
  responder_.SetUdAddressSource([&](in_addr ip) {
    seen = ip;
    return std::optional<control::UdAddress>(Address());
  });
  const ProbeOutcome out = Query("");
  ASSERT_TRUE(out.success) << out.failure->detail;
  ASSERT_TRUE(out.ud_address);
  EXPECT_EQ(out.ud_address->qpn, 4242u);
  EXPECT_EQ(out.ud_address->qkey, 0x11111111u);
  EXPECT_EQ(out.ud_address->gid, Address().gid);
  EXPECT_EQ(seen.s_addr, htonl(INADDR_LOOPBACK));
  EXPECT_EQ(responder_.Stats().sessions_total, 0u) << "no RDMA session was made";
}

TEST_F(UdAddressFlow, NotRunningIsASetupFailedReject) {
  StartResponder("");
  ProbeOutcome out = Query("");
  ASSERT_FALSE(out.success);
  EXPECT_EQ(out.failure->reason, FailureReason::kRejected);
  EXPECT_NE(out.failure->detail.find("ud_ping is not running"), std::string::npos);
  responder_.SetUdAddressSource([](in_addr) { return std::optional<control::UdAddress>(); });
  out = Query("");
  ASSERT_FALSE(out.success);
  EXPECT_EQ(responder_.Stats().rejections.at(control::RejectReason::kSetupFailed), 2u);
}

TEST_F(UdAddressFlow, IsAuthenticatedWithThePresharedKey) {
  StartResponder("secret-key-0123456789");
  responder_.SetUdAddressSource([](in_addr) { return std::optional<control::UdAddress>(Address()); });
  ProbeOutcome out = Query("wrong-key-0123456789");
  ASSERT_FALSE(out.success);
  EXPECT_EQ(out.failure->reason, FailureReason::kAuthFailed);
  EXPECT_FALSE(out.ud_address);
  out = Query("secret-key-0123456789");
  ASSERT_TRUE(out.success) << out.failure->detail;
  EXPECT_EQ(out.ud_address->qpn, 4242u);
}

}  // namespace
}  // namespace rxe::probes
