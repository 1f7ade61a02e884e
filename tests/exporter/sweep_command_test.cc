// The sweep/doctor subcommands on the command line and sweep flag validation.
#include "exporter/sweep_command.h"

#include <gtest/gtest.h>

#include <functional>

#include "exporter/cli.h"

namespace rxe::exporter {
namespace {

TEST(SweepCli, ParsesTheSubcommand) {
  CommandLine c =
      ParseCommandLine({"sweep", "--peer", "10.0.0.2:19800", "--vary", "qps=1..4", "--vary",
                        "size=64,4KiB", "--repeat", "5", "--log.level", "debug"});
  ASSERT_EQ(c.action, Action::kSweep) << c.output;
  EXPECT_EQ(c.sweep.peer, "10.0.0.2:19800");
  EXPECT_EQ(c.sweep.vary, (std::vector<std::string>{"qps=1..4", "size=64,4KiB"}));
  EXPECT_EQ(c.sweep.repeat, 5);
  EXPECT_EQ(c.flags.log_level, log::Level::kDebug);  // root flags fall through
  auto inv = sweep::ValidateSweepOptions(c.sweep);
  ASSERT_TRUE(inv.ok()) << inv.error().message;
  EXPECT_EQ(inv->plans.size(), 2u);
  EXPECT_EQ(inv->target_label, "10.0.0.2:19800");
  EXPECT_EQ(inv->plans[0].repeat, 5);
  EXPECT_EQ(inv->plans[0].held.mtu, 0u);  // --mtu auto by default for --vary
}

TEST(SweepCli, DoctorSubcommand) {
  CommandLine c = ParseCommandLine(
      {"doctor", "--output", "json", "--peer", "b", "--mtu", "4096", "--path.sysfs", "/tmp/sys"});
  ASSERT_EQ(c.action, Action::kDoctor) << c.output;
  EXPECT_EQ(c.doctor.output, "json");
  EXPECT_EQ(c.doctor.peers, std::vector<std::string>{"b"});
  EXPECT_EQ(c.doctor.mtu, 4096);
  EXPECT_EQ(c.flags.sysfs_path, "/tmp/sys");
  EXPECT_EQ(ParseCommandLine({}).action, Action::kRunDaemon);
}

TEST(SweepCli, SubcommandHelp) {
  CommandLine c = ParseCommandLine({"sweep", "--help"});
  EXPECT_EQ(c.action, Action::kPrintAndExit);
  EXPECT_NE(c.output.find("--vary"), std::string::npos) << c.output;
  EXPECT_NE(ParseCommandLine({"--help"}).output.find("sweep"), std::string::npos);
}

TEST(SweepCli, Preset) {
  sweep::SweepOptions o;
  o.peer = "10.0.0.2";
  o.preset = "article";
  o.repeat = 2;
  o.duration = "2s";
  o.pin_cpu = 1;
  auto inv = sweep::ValidateSweepOptions(o);
  ASSERT_TRUE(inv.ok()) << inv.error().message;
  ASSERT_EQ(inv->plans.size(), 6u);
  EXPECT_EQ(inv->plans[0].points[0].params.duration, std::chrono::milliseconds(2000));
  EXPECT_EQ(inv->plans[5].points[1].pin.cpus, std::vector<int>{1});
  EXPECT_EQ(inv->plans[1].points[0].params.mtu, 512u);
  EXPECT_EQ(inv->target.peer.port, 19792);
}

TEST(SweepCli, Errors) {
  struct Case {
    std::function<void(sweep::SweepOptions&)> set;
    const char* message;
  } cases[] = {
      {[](auto& o) { o.peer = ""; }, "--peer: required"},
      {[](auto& o) { o.peer = "h:0"; }, "--peer: bad port"},
      {[](auto& o) { o.vary.clear(); }, "give --vary NAME=VALUES"},
      {[](auto& o) { o.preset = "article"; }, "give --vary NAME=VALUES"},  // both
      {[](auto& o) { o.vary = {}, o.preset = "paper"; }, "unknown preset \"paper\""},
      {[](auto& o) { o.type = "rdma_bw"; }, "--type: unknown probe type"},
      {[](auto& o) { o.mtu = "9000"; }, "--mtu: mtu 9000 is not a RoCE MTU"},
      {[](auto& o) { o.duration = "20s"; }, "--duration: must be 1ms..10s"},
      {[](auto& o) { o.repeat = 0; }, "--repeat: must be 1..100"},
      {[](auto& o) { o.iterations = "x"; }, "--iterations: must be 5..1000000"},
      {[](auto& o) { o.cpu = "zero"; }, "--cpu: bad CPU list"},
      {[](auto& o) { o.vary = {"cq_mod=1,200"}; }, "point 200"},
      {[](auto& o) { o.baseline = "3"; }, "--baseline 3 is not one of the qps points"},
      {[](auto& o) { o.psk_file = "/nonexistent/psk"; }, "--psk-file:"},
      {[](auto& o) { o.output_dir = ""; }, "--output-dir: must not be empty"},
  };
  for (const auto& c : cases) {
    sweep::SweepOptions o;
    o.peer = "10.0.0.2";
    o.vary = {"qps=1,2"};
    c.set(o);
    auto inv = sweep::ValidateSweepOptions(o);
    ASSERT_FALSE(inv.ok()) << c.message;
    EXPECT_NE(inv.error().message.find(c.message), std::string::npos)
        << "want \"" << c.message << "\", got: " << inv.error().message;
  }
}

TEST(SweepCli, PeerAddresses) {
  EXPECT_EQ(sweep::ParsePeerAddress("10.0.0.2")->port, 19792);
  EXPECT_EQ(sweep::ParsePeerAddress("host-b:1234")->address, "host-b");
  EXPECT_EQ(sweep::ParsePeerAddress("[fd00::1]:5")->address, "fd00::1");
  EXPECT_EQ(sweep::ParsePeerAddress("[fd00::1]:5")->port, 5);
  EXPECT_FALSE(sweep::ParsePeerAddress("[fd00::1").ok());
}

}  // namespace
}  // namespace rxe::exporter
