// The subcommands (sweep, doctor) on the daemon's command line.
#include "exporter/cli.h"

#include <gtest/gtest.h>

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
      {"doctor", "--output", "json", "--peer", "b", "--mtu", "4096", "--path.sysfs", "/tmp/sys",
       "--path.procfs", "/tmp/proc"});
  ASSERT_EQ(c.action, Action::kDoctor) << c.output;
  EXPECT_EQ(c.doctor.output, "json");
  EXPECT_EQ(c.doctor.peers, std::vector<std::string>{"b"});
  EXPECT_EQ(c.doctor.mtu, 4096);
  EXPECT_EQ(c.flags.sysfs_path, "/tmp/sys");
  EXPECT_EQ(c.flags.procfs_path, "/tmp/proc");  // the daemon's flag, after the subcommand too
  EXPECT_EQ(ParseCommandLine({}).action, Action::kRunDaemon);
}

TEST(DaemonCli, PathProcfs) {
  EXPECT_EQ(ParseCommandLine({}).flags.procfs_path, "/proc");
  EXPECT_EQ(ParseCommandLine({"--path.procfs=/host/proc"}).flags.procfs_path, "/host/proc");
  CommandLine empty = ParseCommandLine({"--path.procfs", ""});
  EXPECT_EQ(empty.action, Action::kPrintAndExit);
  EXPECT_EQ(empty.exit_code, kExitUsage);
  EXPECT_NE(empty.output.find("--path.procfs: must not be empty"), std::string::npos) << empty.output;
}

TEST(SweepCli, SubcommandHelp) {
  CommandLine c = ParseCommandLine({"sweep", "--help"});
  EXPECT_EQ(c.action, Action::kPrintAndExit);
  EXPECT_NE(c.output.find("--vary"), std::string::npos) << c.output;
  EXPECT_NE(ParseCommandLine({"--help"}).output.find("sweep"), std::string::npos);
}

}  // namespace
}  // namespace rxe::exporter
