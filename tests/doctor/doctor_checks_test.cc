// The doctor's decision functions on recorded facts.
#include "doctor/doctor_checks.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace rxe::doctor {
namespace {

bool Has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

DeviceFact Rxe(uint32_t netdev_mtu, const std::string& netdev = "eth0") {
  DeviceFact d{"rxe0", "rxe", true, {}};
  PortFact p;
  p.state = 4;
  p.state_name = "ACTIVE";
  p.phys_state = 5;
  p.phys_state_name = "LinkUp";
  p.link_layer = "Ethernet";
  p.netdev = netdev;
  p.netdev_mtu = netdev_mtu;
  p.netdev_operstate = "up";
  p.gids = {{0, "fe80::a0ef:46ff:fe35:636e", true, netdev, std::nullopt},
            {1, "::ffff:10.77.0.10", true, netdev, "10.77.0.10"}};
  d.ports.push_back(p);
  return d;
}

TEST(DoctorMtu, DerivedActiveMtu) {
  EXPECT_EQ(DerivedActiveMtu(1500, true), 1024u);
  EXPECT_EQ(DerivedActiveMtu(9000, true), 4096u);
  EXPECT_EQ(DerivedActiveMtu(4176, true), 4096u);  // 4096 + 80
  EXPECT_EQ(DerivedActiveMtu(4175, true), 2048u);
  EXPECT_EQ(DerivedActiveMtu(576, true), 256u);
  EXPECT_EQ(DerivedActiveMtu(100, true), 256u);     // rxe never goes below IB_MTU_256
  EXPECT_EQ(DerivedActiveMtu(4191, false), 2048u);  // hardware: - 96
  EXPECT_EQ(DerivedActiveMtu(4192, false), 4096u);
  EXPECT_EQ(NetdevMtuFor(4096, true), 4176u);
}

TEST(DoctorMtu, Netdev1500WithMtu4096RequestedFailsNamingJumboFrames) {
  const DeviceFact d = Rxe(1500);
  CheckResult r = CheckMtu(d, d.ports[0], {{4096, "module bw_jumbo"}});
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(r.check, "mtu");
  EXPECT_EQ(r.device, "rxe0");
  EXPECT_EQ(r.port, 1);
  EXPECT_TRUE(Has(r.evidence, "netdev eth0 MTU 1500 -> active RoCE MTU 1024")) << r.evidence;
  EXPECT_TRUE(Has(r.evidence, "module bw_jumbo requests MTU 4096")) << r.evidence;
  EXPECT_TRUE(Has(r.fix, "jumbo frames")) << r.fix;
  EXPECT_TRUE(Has(r.fix, "ip link set dev eth0 mtu 9000")) << r.fix;
  EXPECT_TRUE(Has(r.fix, "4176")) << r.fix;
}

TEST(DoctorMtu, PassWarnAndUnknown) {
  const DeviceFact jumbo = Rxe(9000);
  EXPECT_EQ(CheckMtu(jumbo, jumbo.ports[0], {{4096, "--mtu"}}).status, CheckStatus::kPass);
  EXPECT_EQ(CheckMtu(jumbo, jumbo.ports[0], {}).status, CheckStatus::kPass);
  const DeviceFact small = Rxe(1500);
  EXPECT_EQ(CheckMtu(small, small.ports[0], {{1024, "module a"}}).status, CheckStatus::kPass);
  CheckResult advisory = CheckMtu(small, small.ports[0], {});
  EXPECT_EQ(advisory.status, CheckStatus::kWarn);  // nothing requested: advice only
  EXPECT_TRUE(Has(advisory.fix, "jumbo frames"));
  DeviceFact unknown = Rxe(1500);
  unknown.ports[0].netdev_mtu.reset();
  EXPECT_EQ(CheckMtu(unknown, unknown.ports[0], {}).status, CheckStatus::kSkip);
  DeviceFact reported = Rxe(9000);
  reported.ports[0].active_mtu = 1024;  // verbs says otherwise: believe it
  EXPECT_EQ(CheckMtu(reported, reported.ports[0], {{4096, "--mtu"}}).status, CheckStatus::kFail);
}

TEST(DoctorDevice, NoRxeDeviceFailsWithRdmaLinkAdd) {
  CheckResult r = CheckRdmaDevice({}, {"ens33", "ens34"});
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_TRUE(Has(r.fix, "sudo rdma link add rxe0 type rxe netdev ens33")) << r.fix;
  EXPECT_TRUE(Has(CheckRdmaDevice({}, {}).fix, "netdev <netdev>"));
  CheckResult ok = CheckRdmaDevice({Rxe(9000)}, {});
  EXPECT_EQ(ok.status, CheckStatus::kPass);
  EXPECT_EQ(ok.evidence, "rxe0 (rxe on eth0)");
  DeviceFact hw{"mlx5_0", "mlx5_core", false, {}};
  EXPECT_TRUE(Has(CheckRdmaDevice({hw}, {}).evidence, "hardware RDMA only"));
}

TEST(DoctorDevice, PortState) {
  DeviceFact d = Rxe(9000);
  EXPECT_EQ(CheckPortState(d, d.ports[0]).status, CheckStatus::kPass);
  d.ports[0].state = 1;
  d.ports[0].state_name = "DOWN";
  d.ports[0].phys_state = 3;
  d.ports[0].phys_state_name = "Disabled";
  d.ports[0].netdev_operstate = "down";
  CheckResult r = CheckPortState(d, d.ports[0]);
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_TRUE(
      Has(r.evidence, "state DOWN (1), phys_state Disabled (3), netdev eth0 operstate down"));
  EXPECT_TRUE(Has(r.fix, "sudo ip link set dev eth0 up"));
}

TEST(DoctorGid, NamesTheIndexToUse) {
  DeviceFact d = Rxe(9000);
  CheckResult r = CheckGid(d, d.ports[0], {});
  EXPECT_EQ(r.status, CheckStatus::kPass);
  EXPECT_TRUE(Has(r.evidence, "index 1 = 10.77.0.10 on eth0")) << r.evidence;
  EXPECT_TRUE(Has(r.evidence, "perftest -x 1"));
  CheckResult wrong = CheckGid(d, d.ports[0], {{0, "", "module lat"}});
  EXPECT_EQ(wrong.status, CheckStatus::kFail);
  EXPECT_TRUE(Has(wrong.evidence,
                  "module lat uses gid_index 0: fe80::a0ef:46ff:fe35:636e (RoCE v2, not IPv4)"))
      << wrong.evidence;
  EXPECT_TRUE(Has(wrong.fix, "gid_index: 1 (perftest -x 1)"));
  EXPECT_EQ(CheckGid(d, d.ports[0], {{0, "mlx5_0", "module other"}}).status, CheckStatus::kPass);
  d.ports[0].gids.pop_back();
  CheckResult none = CheckGid(d, d.ports[0], {});
  EXPECT_EQ(none.status, CheckStatus::kFail);
  EXPECT_TRUE(Has(none.fix, "ip addr add"));
}

TEST(DoctorSharedNetdev, RxeOnAHardwareRoceNetdevWarns) {
  DeviceFact hw{"mlx5_0", "mlx5_core", false, {}};
  hw.ports.push_back(Rxe(9000, "eth2").ports[0]);
  CheckResult r = CheckSharedNetdev({Rxe(9000, "eth2"), hw});
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(Has(r.evidence, "eth2: rxe rxe0 and hardware mlx5_0")) << r.evidence;
  EXPECT_TRUE(Has(r.fix, "rdma link delete rxe0"));
  EXPECT_EQ(CheckSharedNetdev({Rxe(9000, "eth0"), hw}).status, CheckStatus::kPass);
}

TEST(DoctorMemlock, LimitVersusNeed) {
  const MemlockNeed need = MemlockNeedFor(config::Config{});
  EXPECT_EQ(need.largest_buffer_bytes, 131072u);                    // 2 x 64 KiB
  EXPECT_EQ(need.concurrent_bytes, 2u * 131072 + 4u * (4u << 20));  // 2 probes + 4 sessions
  EXPECT_EQ(CheckMemlock({false, 65536, false}, need).status, CheckStatus::kFail);
  CheckResult warn = CheckMemlock({false, 8u << 20, false}, need);
  EXPECT_EQ(warn.status, CheckStatus::kWarn);
  EXPECT_TRUE(Has(warn.evidence, "RLIMIT_MEMLOCK 8MiB"));
  EXPECT_TRUE(Has(warn.fix, "LimitMEMLOCK"));
  EXPECT_EQ(CheckMemlock({true, 0, false}, need).status, CheckStatus::kPass);
  EXPECT_EQ(CheckMemlock({false, 65536, true}, need).status, CheckStatus::kPass);  // CAP_IPC_LOCK
  EXPECT_EQ(CheckMemlock({false, 256u << 20, false}, need).status, CheckStatus::kPass);
}

TEST(DoctorGovernor, PerformanceOrNothingToTune) {
  EXPECT_EQ(CheckGovernor({}).status, CheckStatus::kPass);
  EXPECT_EQ(CheckGovernor({{0, "performance"}, {1, "performance"}}).status, CheckStatus::kPass);
  CheckResult r =
      CheckGovernor({{0, "powersave"}, {1, "powersave"}, {2, "performance"}, {3, "powersave"}});
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(Has(r.evidence, "scaling_governor CPU 2: performance; CPU 0-1,3: powersave"))
      << r.evidence;
  EXPECT_TRUE(Has(r.fix, "cpupower frequency-set -g performance"));
}

TEST(DoctorSoftirq, HotCoreWarns) {
  SoftirqSample s;
  s.before = {{0, 1000, 100}, {1, 1000, 100}};
  s.after = {{0, 1200, 110}, {1, 1200, 270}};  // CPU 1: 170 of 200 ticks in softirq
  s.during = "a 2s write_bw probe to b";
  CheckResult r = CheckSoftirq(s);
  EXPECT_EQ(r.status, CheckStatus::kWarn);
  EXPECT_TRUE(
      Has(r.evidence,
          "busiest CPU 1 spent 85% in softirq during a 2s write_bw probe to b; next CPU 0 5%"))
      << r.evidence;
  EXPECT_TRUE(Has(r.fix, "mpstat -P ALL 1"));
  s.after = {{0, 1200, 110}, {1, 1200, 150}};  // 25%
  EXPECT_EQ(CheckSoftirq(s).status, CheckStatus::kPass);
  s.after = s.before;
  EXPECT_EQ(CheckSoftirq(s).status, CheckStatus::kSkip);
}

TEST(DoctorModule, LoadedAvailableMissing) {
  EXPECT_EQ(CheckRxeModule({true, true, "6.1.0", "/sys/module/rdma_rxe exists"}, {}).status,
            CheckStatus::kPass);
  CheckResult avail =
      CheckRxeModule({false, true, "6.1.0", "listed in /lib/modules/6.1.0/modules.dep"}, {});
  EXPECT_EQ(avail.status, CheckStatus::kPass);
  EXPECT_TRUE(Has(avail.evidence, "not loaded"));
  CheckResult missing = CheckRxeModule({false, false, "6.1.0", ""}, {});
  EXPECT_EQ(missing.status, CheckStatus::kFail);
  EXPECT_TRUE(Has(missing.fix, "linux-modules-extra-6.1.0"));
  DeviceFact hw{"mlx5_0", "mlx5_core", false, {}};
  EXPECT_EQ(CheckRxeModule({false, false, "6.1.0", ""}, {hw}).status, CheckStatus::kSkip);
}

PeerFact Peer(PeerFact::Tcp tcp) {
  PeerFact p;
  p.name = "b";
  p.address = "10.77.0.11";
  p.tcp = tcp;
  return p;
}

TEST(DoctorPeer, ControlPortRefusedNamesTheResponder) {
  CheckResult r = CheckPeerControl(Peer(PeerFact::Tcp::kRefused));
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_EQ(r.peer, "b");
  EXPECT_TRUE(Has(r.evidence, "10.77.0.11:19792 refused"));
  EXPECT_TRUE(Has(r.fix, "the responder is not running on 10.77.0.11")) << r.fix;
  EXPECT_EQ(CheckPeerRdma(Peer(PeerFact::Tcp::kRefused)).status, CheckStatus::kSkip);
  CheckResult t = CheckPeerControl(Peer(PeerFact::Tcp::kTimeout));
  EXPECT_EQ(t.status, CheckStatus::kFail);
  EXPECT_TRUE(Has(t.fix, "firewall drops TCP 19792"));
  EXPECT_EQ(CheckPeerControl(Peer(PeerFact::Tcp::kOk)).status, CheckStatus::kPass);
}

TEST(DoctorPeer, TcpOkButRdmaTimeoutNamesUdp4791) {
  PeerFact p = Peer(PeerFact::Tcp::kOk);
  p.rdma_attempted = true;
  p.rdma_reason = "timeout";
  p.rdma_detail = "no completion before the deadline";
  CheckResult r = CheckPeerRdma(p);
  EXPECT_EQ(r.status, CheckStatus::kFail);
  EXPECT_TRUE(Has(r.evidence, "TCP 19792 works but the RDMA exchange failed")) << r.evidence;
  EXPECT_TRUE(Has(r.evidence, "UDP 4791"));
  EXPECT_TRUE(Has(r.fix, "firewall drops UDP 4791")) << r.fix;
  EXPECT_TRUE(Has(r.fix, "iptables -I INPUT -p udp --dport 4791 -j ACCEPT"));
  p.rdma_reason = "wc_error";
  p.wc_status = "transport retry counter exceeded";
  EXPECT_TRUE(Has(CheckPeerRdma(p).fix, "UDP 4791"));
  p.rdma_reason = "timeout";
  p.wc_status.clear();
  p.rdma_detail = "waiting for ACCEPT: timed out";  // the responder hangs: not a UDP problem
  EXPECT_FALSE(Has(CheckPeerRdma(p).fix, "UDP 4791"));
  p.rdma_reason = "rejected";
  EXPECT_TRUE(Has(CheckPeerRdma(p).fix, "allowed_cidrs"));
  p.rdma_ok = true;
  p.rdma_summary = "write_lat, 20 round trips";
  EXPECT_EQ(CheckPeerRdma(p).status, CheckStatus::kPass);
}

TEST(DoctorRun, OrderWorstAndExitStatus) {
  Facts f;
  f.module = {true, true, "6.1.0", ""};
  f.devices = {Rxe(1500)};
  f.mtu_requests = {{4096, "--mtu"}};
  f.memlock = MemlockFact{true, 0, false};
  f.memlock_need = MemlockNeedFor(config::Config{});
  f.governors = std::vector<CpuGovernor>{};
  f.peers = {Peer(PeerFact::Tcp::kOk)};
  auto results = RunChecks(f);
  std::vector<std::string> names;
  for (const auto& r : results) names.push_back(r.check);
  EXPECT_EQ(names, (std::vector<std::string>{"rxe_module", "rdma_device", "port_state", "mtu",
                                             "gid", "shared_netdev", "memlock", "cpu_governor",
                                             "peer_control", "peer_rdma"}));
  EXPECT_EQ(Worst(results), CheckStatus::kFail);
  EXPECT_EQ(ExitStatus(Worst(results)), 2);
  EXPECT_EQ(ExitStatus(Worst(
                {{"a", "", 0, "", CheckStatus::kWarn}, {"b", "", 0, "", CheckStatus::kSkip}})),
            1);
  EXPECT_EQ(ExitStatus(Worst({{"b", "", 0, "", CheckStatus::kSkip}})), 0);
  f.devices[0].ports[0].link_layer = "InfiniBand";  // no RoCE MTU/GID rules
  names.clear();
  for (const auto& r : RunChecks(f)) names.push_back(r.check);
  EXPECT_EQ(std::count(names.begin(), names.end(), "mtu"), 0);
}

}  // namespace
}  // namespace rxe::doctor
