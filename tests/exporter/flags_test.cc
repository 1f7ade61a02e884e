#include <gtest/gtest.h>

#include "exporter/build_info.h"
#include "exporter/cli.h"

namespace rxe::exporter {
namespace {

CommandLine Parse(std::vector<std::string> args) { return ParseCommandLine(args); }

TEST(Flags, Defaults) {
  CommandLine c = Parse({});
  ASSERT_EQ(c.action, Action::kRunDaemon) << c.output;
  EXPECT_EQ(c.flags.config_file, "/etc/rxe_exporter/rxe_exporter.yml");
  EXPECT_FALSE(c.flags.config_file_given);
  ASSERT_EQ(c.flags.listen_addresses.size(), 1u);
  EXPECT_EQ(c.flags.listen_addresses[0].text, ":19791");
  EXPECT_EQ(c.flags.listen_addresses[0].host, "::");
  EXPECT_EQ(c.flags.listen_addresses[0].port, 19791);
  EXPECT_EQ(c.flags.telemetry_path, "/metrics");
  EXPECT_EQ(c.flags.web_config_file, "");
  EXPECT_EQ(c.flags.sysfs_path, "/sys");
  EXPECT_EQ(c.flags.max_requests, 4);
  EXPECT_EQ(c.flags.http.max_connections, 64u);
  EXPECT_EQ(c.flags.http.read_timeout, std::chrono::seconds(5));
  EXPECT_EQ(c.flags.http.max_header_bytes, 16384u);
  EXPECT_EQ(c.flags.admin_auth, AdminAuth::kAuto);
  EXPECT_EQ(c.flags.log_level, log::Level::kInfo);
  EXPECT_EQ(c.flags.log_format, log::Format::kLogfmt);
}

TEST(Flags, AllGoodValues) {
  CommandLine c = Parse({"--config.file=/tmp/x.yml", "--web.listen-address=127.0.0.1:1",
                         "--web.listen-address", "[::1]:2", "--web.telemetry-path=/m",
                         "--web.config.file", "/tmp/web.yml", "--path.sysfs=/fake/sys",
                         "--web.max-requests=0", "--log.level=debug", "--log.format=json"});
  ASSERT_EQ(c.action, Action::kRunDaemon) << c.output;
  EXPECT_EQ(c.flags.config_file, "/tmp/x.yml");
  EXPECT_TRUE(c.flags.config_file_given);
  ASSERT_EQ(c.flags.listen_addresses.size(), 2u);
  EXPECT_EQ(c.flags.listen_addresses[0].host, "127.0.0.1");
  EXPECT_EQ(c.flags.listen_addresses[1].host, "::1");
  EXPECT_EQ(c.flags.listen_addresses[1].port, 2);
  EXPECT_EQ(c.flags.telemetry_path, "/m");
  EXPECT_EQ(c.flags.web_config_file, "/tmp/web.yml");
  EXPECT_EQ(c.flags.sysfs_path, "/fake/sys");
  EXPECT_EQ(c.flags.max_requests, 0);
  EXPECT_EQ(c.flags.log_level, log::Level::kDebug);
  EXPECT_EQ(c.flags.log_format, log::Format::kJson);
}

TEST(Flags, HttpLimitsAndAdminAuth) {
  CommandLine c = Parse({"--web.max-connections=8", "--web.read-timeout=1m30s",
                         "--web.max-header-bytes=4KiB", "--web.admin-auth=false"});
  ASSERT_EQ(c.action, Action::kRunDaemon) << c.output;
  EXPECT_EQ(c.flags.http.max_connections, 8u);
  EXPECT_EQ(c.flags.http.read_timeout, std::chrono::seconds(90));
  EXPECT_EQ(c.flags.http.max_header_bytes, 4096u);
  EXPECT_EQ(c.flags.admin_auth, AdminAuth::kOpen);
  EXPECT_EQ(Parse({"--web.admin-auth=true"}).flags.admin_auth, AdminAuth::kRequired);
}

TEST(Flags, ConfigCheck) {
  CommandLine c = Parse({"--config.check", "--config.file", "a.yml"});
  EXPECT_EQ(c.action, Action::kCheckConfig);
  EXPECT_TRUE(c.flags.config_check);
}

TEST(Flags, Version) {
  CommandLine c = Parse({"--version"});
  EXPECT_EQ(c.action, Action::kPrintAndExit);
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_FALSE(c.to_stderr);
  EXPECT_EQ(c.output, VersionText());
  EXPECT_EQ(c.output.rfind(std::string("rxe_exporter, version ") + Version() + " (revision: ", 0),
            0u);
}

TEST(Flags, Help) {
  CommandLine c = Parse({"--help"});
  EXPECT_EQ(c.action, Action::kPrintAndExit);
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_NE(c.output.find("--web.listen-address"), std::string::npos);
}

struct BadFlag {
  std::vector<std::string> args;
  std::string message;
};

void PrintTo(const BadFlag& f, std::ostream* os) {
  for (const auto& a : f.args) *os << "'" << a << "' ";
}

class BadFlags : public ::testing::TestWithParam<BadFlag> {};

TEST_P(BadFlags, ExitTwoWithExactMessage) {
  CommandLine c = Parse(GetParam().args);
  EXPECT_EQ(c.action, Action::kPrintAndExit);
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_TRUE(c.to_stderr);
  EXPECT_EQ(c.output, "rxe_exporter: error: " + GetParam().message +
                          "\nRun with --help for more information.\n");
}

INSTANTIATE_TEST_SUITE_P(
    All, BadFlags,
    ::testing::Values(
        BadFlag{{"--log.level=verbose"},
                "--log.level: invalid value \"verbose\" (allowed: debug, info, warn, error)"},
        BadFlag{{"--log.format=xml"},
                "--log.format: invalid value \"xml\" (allowed: logfmt, json)"},
        BadFlag{{"--web.telemetry-path=metrics"},
                "--web.telemetry-path: must start with \"/\", got \"metrics\""},
        BadFlag{{"--web.telemetry-path=/-/healthy"},
                "--web.telemetry-path: \"/-/healthy\" is reserved for another endpoint"},
        BadFlag{{"--web.listen-address=localhost"},
                "--web.listen-address: invalid listen address \"localhost\": missing port "
                "(expected host:port, :port or [ipv6]:port)"},
        BadFlag{{"--web.listen-address=:1", "--web.listen-address=:1"},
                "--web.listen-address: \":1\" given twice"},
        BadFlag{{"--web.max-requests=-1"},
                "--web.max-requests: must be 0 (no limit) or more, got -1"},
        BadFlag{{"--web.max-requests=many"}, "Could not convert: --web.max-requests = many"},
        BadFlag{{"--web.max-connections=0"},
                "--web.max-connections: must be between 1 and 65536, got 0"},
        BadFlag{{"--web.read-timeout=5"},
                "--web.read-timeout: invalid value \"5\" (a duration from 100ms to 5m, e.g. 5s)"},
        BadFlag{{"--web.max-header-bytes=16KB"},
                "--web.max-header-bytes: invalid value \"16KB\" (1KiB to 1MiB, e.g. 16KiB or "
                "16384)"},
        BadFlag{{"--web.admin-auth=yes"},
                "--web.admin-auth: invalid value \"yes\" (allowed: auto, true, false)"},
        BadFlag{{"--path.sysfs", ""}, "--path.sysfs: must not be empty"},
        BadFlag{{"--config.file", ""}, "--config.file: must not be empty"},
        BadFlag{{"--path.sysfs="}, "--path.sysfs: 1 required TEXT missing"},
        BadFlag{{"--no.such.flag"}, "The following argument was not expected: --no.such.flag"},
        BadFlag{{"--web.listen-address", ":1", ":2"},
                "The following argument was not expected: :2"},
        BadFlag{{"--config.file"}, "--config.file: 1 required TEXT missing"}));

}  // namespace
}  // namespace rxe::exporter
