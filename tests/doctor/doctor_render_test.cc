// Golden tests of the doctor's text and JSON output, and the peer outcome mapping.
#include "doctor/doctor_render.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "doctor/doctor_probe.h"

namespace rxe::doctor {
namespace {


void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(RXE_FIXTURES_DIR) + "/doctor/golden/" + name;
  const char* update = std::getenv("RXE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path << " (run with RXE_UPDATE_GOLDEN=1)";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), actual) << "golden " << path << " differs (RXE_UPDATE_GOLDEN=1 rewrites it)";
}

/// A host with the classic problems: netdev MTU 1500 with MTU 4096 requested,
/// powersave, a hot softirq core, one peer whose firewall drops UDP 4791 and
/// one whose responder is stopped.
std::vector<CheckResult> Broken() {
  Facts f;
  f.module = {true, true, "6.1.0-test", "/sys/module/rdma_rxe exists"};
  DeviceFact d{"rxe0", "rxe", true, {}};
  PortFact p;
  p.state = 4;
  p.state_name = "ACTIVE";
  p.phys_state = 5;
  p.phys_state_name = "LinkUp";
  p.link_layer = "Ethernet";
  p.netdev = "eth0";
  p.netdev_mtu = 1500;
  p.netdev_operstate = "up";
  p.gids = {{0, "fe80::1", true, "eth0", std::nullopt},
            {1, "::ffff:10.77.0.10", true, "eth0", "10.77.0.10"}};
  d.ports.push_back(p);
  f.devices = {d};
  f.mtu_requests = {{4096, "module bw_jumbo"}};
  f.memlock = MemlockFact{false, 8u << 20, false};
  f.memlock_need = MemlockNeedFor(config::Config{});
  f.governors = std::vector<CpuGovernor>{{0, "powersave"}, {1, "powersave"}};
  SoftirqSample s;
  s.before = {{0, 1000, 100}, {1, 1000, 100}};
  s.after = {{0, 1200, 290}, {1, 1200, 120}};
  s.during = "a 2s write_bw probe to b (0.84 Gb/s)";
  f.softirq = s;
  PeerFact fw;
  fw.name = "b";
  fw.address = "10.77.0.11";
  fw.tcp_detail = "control protocol handshake done";
  fw.rdma_attempted = true;
  fw.rdma_reason = "wc_error";
  fw.rdma_detail = "RDMA WRITE completion failed";
  fw.wc_status = "transport retry counter exceeded";
  PeerFact down;
  down.name = "c";
  down.address = "10.77.0.12";
  down.tcp = PeerFact::Tcp::kRefused;
  down.tcp_detail = "control connection to 10.77.0.12:19792: Connection refused";
  f.peers = {fw, down};
  return RunChecks(f);
}

TEST(DoctorRender, TextGolden) { ExpectGolden("broken.txt", RenderText(Broken())); }
TEST(DoctorRender, JsonGolden) { ExpectGolden("broken.json", RenderJson(Broken())); }

TEST(DoctorRender, JsonParsesWithPython) {
  const std::string path = ::testing::TempDir() + "/doctor.json";
  std::ofstream(path, std::ios::binary) << RenderJson(Broken());
  if (std::system("python3 -c 'import json' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string cmd =
      "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
      "assert d[\"summary\"][\"exit_status\"] == 2' " +
      path;
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}

TEST(DoctorRender, Summary) {
  const std::string t = RenderText(Broken());
  EXPECT_NE(t.find("result FAIL (exit status 2)"), std::string::npos) << t;
  EXPECT_NE(t.find("[FAIL] mtu rxe0/1:"), std::string::npos);
  EXPECT_NE(t.find("[FAIL] peer_control peer c:"), std::string::npos);
  EXPECT_NE(RenderText({}).find("0 checks"), std::string::npos);
}

TEST(DoctorProbe, RdmaOutcomeMapping) {
  probes::ProbeOutcome o;
  o.failure = probes::ProbeFailure{probes::FailureReason::kTimeout, "no completion", ""};
  PeerFact f;
  ApplyRdmaOutcome(o, f);
  EXPECT_TRUE(f.rdma_attempted);
  EXPECT_FALSE(f.rdma_ok);
  EXPECT_EQ(f.rdma_reason, "timeout");
  probes::ProbeOutcome ok;
  ok.success = true;
  ok.params.size = 64;
  ok.device = "rxe0";
  ok.path_mtu = 4096;
  ok.measurement = probes::LatencyMeasurement{{40e-6, 40e-6, 40e-6}};
  PeerFact g;
  ApplyRdmaOutcome(ok, g);
  EXPECT_TRUE(g.rdma_ok);
  EXPECT_EQ(
      g.rdma_summary,
      "write_lat, 3 round trips of 64 bytes, median 20.0 us one-way (device rxe0, path MTU 4096)");
}

TEST(DoctorProbe, LocalRoceAddress) {
  DeviceFact d{"rxe0", "rxe", true, {}};
  PortFact p;
  p.state = 4;
  p.link_layer = "Ethernet";
  p.gids = {{1, "::ffff:10.0.0.1", true, "eth0", "10.0.0.1"}};
  d.ports.push_back(p);
  EXPECT_EQ(LocalRoceAddress({d}), "10.0.0.1");
  d.ports[0].state = 1;
  EXPECT_FALSE(LocalRoceAddress({d}));
}

}  // namespace
}  // namespace rxe::doctor
