// The built rxe_exporter binary: exit codes, --version, --config.check,
// signals (SIGTERM/SIGINT exit 0 within 2 s, SIGHUP reload).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

#include "exporter/build_info.h"
#include "tests/exporter/test_util.h"

namespace rxe::exporter {
namespace {

using namespace std::chrono_literals;
using testing::Child;
using testing::RunBinary;
using testing::TempDir;
using testing::WriteFile;

bool Contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

TEST(Binary, Version) {
  std::string out, err;
  EXPECT_EQ(RunBinary({"--version"}, &out, &err), 0);
  EXPECT_EQ(out, VersionText());
  EXPECT_EQ(err, "");
}

TEST(Binary, BadFlagExitsTwo) {
  std::string out, err;
  EXPECT_EQ(RunBinary({"--log.format=xml"}, &out, &err), 2);
  EXPECT_EQ(err,
            "rxe_exporter: error: --log.format: invalid value \"xml\" (allowed: logfmt, json)\n"
            "Run with --help for more information.\n");
  EXPECT_EQ(out, "");
}

TEST(Binary, ConfigCheck) {
  TempDir dir;
  const std::string good = dir.File("good.yml"), bad = dir.File("bad.yml");
  WriteFile(good, testing::TestConfigYaml());
  WriteFile(bad, "collectors:\n  sysfs: maybe\n");
  std::string out, err;
  EXPECT_EQ(RunBinary({"--config.check", "--config.file", good}, &out, &err), 0);
  EXPECT_EQ(out, "config OK\n");

  EXPECT_EQ(RunBinary({"--config.check", "--config.file", bad}, &out, &err), 1);
  EXPECT_EQ(out, "");
  EXPECT_TRUE(Contains(err, bad + ":2:10: collectors.sysfs")) << err;

  EXPECT_EQ(RunBinary({"--config.check", "--config.file", dir.File("missing.yml")}, &out, &err), 1);
  EXPECT_TRUE(Contains(err, "missing.yml")) << err;

  const std::string web = dir.File("web.yml");
  WriteFile(web, "basic_auth_users:\n  alice: plain\n");
  EXPECT_EQ(
      RunBinary({"--config.check", "--config.file", good, "--web.config.file", web}, &out, &err),
      1);
  EXPECT_TRUE(Contains(err, web + ":2:10: basic_auth_users.alice: not a bcrypt hash")) << err;
}

// Mesh settings that are valid but probably not meant are warnings: reported, exit 0.
TEST(Binary, ConfigCheckReportsMeshWarningsAndErrors) {
  TempDir dir;
  const std::string cfg = dir.File("mesh.yml");
  const std::string mesh =
      "peers:\n  - {name: a, address: 10.0.0.1, labels: {rack: r1}}\n"
      "modules:\n  m: {type: send_lat, subset: {group_label: rack}}\n";
  WriteFile(cfg, testing::TestConfigYaml() + "prober: {self: {name: nobody}}\n" + mesh);
  std::string out, err;
  EXPECT_EQ(RunBinary({"--config.check", "--config.file", cfg}, &out, &err), 0) << err;
  EXPECT_EQ(out, "config OK\n");
  EXPECT_TRUE(Contains(err, "warning: " + cfg + ": prober.self.name: \"nobody\" matches no peer"))
      << err;
  EXPECT_TRUE(Contains(err, "warning: " + cfg + ": modules.m.subset.group_label: this host has "
                            "no \"rack\" label"))
      << err;

  WriteFile(cfg, testing::TestConfigYaml() + mesh);  // subset without prober.self: an error
  EXPECT_EQ(RunBinary({"--config.check", "--config.file", cfg}, &out, &err), 1);
  EXPECT_TRUE(Contains(err, "modules.m.subset: needs prober.self.name")) << err;
}

// --config.check reads what the daemon reads at start, key files included:
// a config that passes the check must not then fail to start.
TEST(Binary, ConfigCheckLoadsTheKeyFiles) {
  TempDir dir;
  const std::string cfg = dir.File("c.yml");
  WriteFile(cfg, testing::TestConfigYaml() + "prober:\n  psk_file: prober.key\n");
  std::string out, err;
  EXPECT_EQ(RunBinary({"--config.check", "--config.file", cfg}, &out, &err), 1);
  EXPECT_EQ(out, "");
  EXPECT_TRUE(Contains(err, cfg + ": prober.psk_file: ")) << err;
  EXPECT_TRUE(Contains(err, dir.File("prober.key"))) << err;
  // The daemon refuses the same config for the same reason.
  EXPECT_EQ(RunBinary({"--config.file", cfg, "--web.listen-address=127.0.0.1:0"}, &out, &err), 1);
  EXPECT_TRUE(Contains(err, "prober.psk_file")) << err;

  // A key others can read is refused by the check as by the daemon.
  WriteFile(dir.File("prober.key"), "secret\n");
  EXPECT_EQ(RunBinary({"--config.check", "--config.file", cfg}, &out, &err), 1);
  EXPECT_TRUE(Contains(err, "accessible by others")) << err;
  ASSERT_EQ(chmod(dir.File("prober.key").c_str(), 0600), 0);
  EXPECT_EQ(RunBinary({"--config.check", "--config.file", cfg}, &out, &err), 0) << err;
  EXPECT_EQ(out, "config OK\n");

  // The responder's key is read only when the responder runs, as at start.
  WriteFile(cfg, "responder:\n  enabled: false\n  psk_file: responder.key\n");
  EXPECT_EQ(RunBinary({"--config.check", "--config.file", cfg}, &out, &err), 0) << err;
  WriteFile(cfg, "responder:\n  psk_file: responder.key\n");
  EXPECT_EQ(RunBinary({"--config.check", "--config.file", cfg}, &out, &err), 1);
  EXPECT_TRUE(Contains(err, cfg + ": responder.psk_file: ")) << err;
  WriteFile(dir.File("responder.key"), "");
  ASSERT_EQ(chmod(dir.File("responder.key").c_str(), 0600), 0);
  EXPECT_EQ(RunBinary({"--config.check", "--config.file", cfg}, &out, &err), 1);
  EXPECT_TRUE(Contains(err, "responder.psk_file")) << err;  // empty key
}

TEST(Binary, PortInUseExitsOne) {
  TempDir dir;
  WriteFile(dir.File("c.yml"), testing::TestConfigYaml());
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  const std::string addr = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  std::string out, err;
  EXPECT_EQ(
      RunBinary({"--config.file", dir.File("c.yml"), "--web.listen-address", addr}, &out, &err), 1);
  EXPECT_TRUE(Contains(
      err, "msg=\"cannot start\" err=\"cannot listen on " + addr + ": Address already in use\""))
      << err;
  close(fd);
}

// --path.procfs moves the host collector's /proc (the fixture has one CPU,
// softirq 438 ticks); process_* still describe this daemon from /proc/self.
TEST(Binary, PathProcfsAndProcessMetrics) {
  TempDir dir;
  WriteFile(dir.File("c.yml"), testing::TestConfigYaml());
  Child child({"--config.file", dir.File("c.yml"), "--web.listen-address=127.0.0.1:0",
               "--path.sysfs", std::string(RXE_FIXTURES_DIR) + "/sys", "--path.procfs",
               std::string(RXE_FIXTURES_DIR) + "/process/proc"},
              dir.path());
  const int port = child.WaitForListenPort(10s);
  ASSERT_GT(port, 0) << child.Stderr();
  httplib::Client cli("127.0.0.1", port);
  auto res = cli.Get("/metrics");
  ASSERT_TRUE(res);
  const std::string& m = res->body;
  const std::string softirq =
      "rxe_host_softirq_seconds_total{cpu=\"0\"} " +
      std::to_string(438.0 / static_cast<double>(sysconf(_SC_CLK_TCK))).substr(0, 4);
  EXPECT_TRUE(Contains(m, softirq)) << m;
  EXPECT_FALSE(Contains(m, "rxe_host_softirq_seconds_total{cpu=\"1\"}")) << m;
  for (const char* name : {"process_cpu_seconds_total ", "process_resident_memory_bytes ",
                           "process_virtual_memory_bytes ", "process_virtual_memory_max_bytes ",
                           "process_open_fds ", "process_max_fds ",
                           "process_start_time_seconds "}) {
    EXPECT_TRUE(Contains(m, std::string("\n") + name)) << name << "\n" << m;
  }
  EXPECT_TRUE(Contains(m, "# TYPE process_cpu_seconds_total counter")) << m;
  kill(child.pid(), SIGTERM);
  EXPECT_EQ(child.Wait(5s), 0);
}

class RunningBinary : public ::testing::Test {
 protected:
  void Start() {
    config_ = dir_.File("rxe_exporter.yml");
    WriteFile(config_, testing::TestConfigYaml());
    child_ = std::make_unique<Child>(
        std::vector<std::string>{"--config.file", config_, "--web.listen-address=127.0.0.1:0",
                                 "--path.sysfs", std::string(RXE_FIXTURES_DIR) + "/sys"},
        dir_.path());
    port_ = child_->WaitForListenPort(10s);
    ASSERT_GT(port_, 0) << child_->Stderr();
    httplib::Client cli("127.0.0.1", port_);
    auto ready = cli.Get("/-/ready");
    ASSERT_TRUE(ready);
    ASSERT_EQ(ready->status, 200);
  }
  /// Signals the child and returns its exit status and how long it took.
  std::pair<int, std::chrono::milliseconds> SignalAndWait(int sig) {
    const auto t0 = std::chrono::steady_clock::now();
    kill(child_->pid(), sig);
    const int rc = child_->Wait(5s);
    return {rc, std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now() - t0)};
  }

  TempDir dir_;
  std::string config_;
  std::unique_ptr<Child> child_;
  int port_ = -1;
};

TEST_F(RunningBinary, SigtermExitsZeroWithinTwoSeconds) {
  Start();
  // An idle keep-alive connection must not delay the shutdown.
  httplib::Client cli("127.0.0.1", port_);
  cli.set_keep_alive(true);
  ASSERT_EQ(cli.Get("/metrics")->status, 200);
  auto [rc, took] = SignalAndWait(SIGTERM);
  EXPECT_EQ(rc, 0) << child_->Stderr();
  EXPECT_LT(took, 2000ms);
  EXPECT_TRUE(Contains(child_->Stderr(), "msg=\"shutting down\" signal=Terminated"));
}

TEST_F(RunningBinary, SigintExitsZero) {
  Start();
  auto [rc, took] = SignalAndWait(SIGINT);
  EXPECT_EQ(rc, 0) << child_->Stderr();
  EXPECT_LT(took, 2000ms);
}

TEST_F(RunningBinary, SighupWithBrokenConfigKeepsServing) {
  Start();
  WriteFile(config_, "devices:\n  include: \"(\"\n");
  kill(child_->pid(), SIGHUP);
  httplib::Client cli("127.0.0.1", port_);
  std::string metrics;
  for (int i = 0; i < 100; ++i) {
    auto res = cli.Get("/metrics");
    ASSERT_TRUE(res) << "the daemon must keep serving";
    metrics = res->body;
    if (Contains(metrics, "rxe_exporter_config_last_reload_successful 0\n")) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(Contains(metrics, "rxe_exporter_config_last_reload_successful 0\n"));
  EXPECT_TRUE(Contains(metrics, "device=\"rxe0\"")) << "still collecting with the old config";
  EXPECT_EQ(cli.Get("/-/healthy")->status, 200);
  EXPECT_TRUE(Contains(child_->Stderr(), "configuration reload failed")) << child_->Stderr();

  WriteFile(config_, testing::TestConfigYaml());
  kill(child_->pid(), SIGHUP);
  for (int i = 0; i < 100; ++i) {
    metrics = cli.Get("/metrics")->body;
    if (Contains(metrics, "rxe_exporter_config_last_reload_successful 1\n")) break;
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_TRUE(Contains(metrics, "rxe_exporter_config_last_reload_successful 1\n"));
  EXPECT_EQ(SignalAndWait(SIGTERM).first, 0);
}

// A config or peer file holding just "," made yaml-cpp's LoadAll loop forever on the main
// loop (no reload answer, no watchdog ping, ~200 MB/s). Now each reload fails at once and
// the old config stays.
TEST_F(RunningBinary, SighupWithCommaFilesKeepsTheOldConfig) {
  Start();
  httplib::Client cli("127.0.0.1", port_);
  const auto reload_and_wait = [&](const char* want) {
    kill(child_->pid(), SIGHUP);
    std::string metrics;
    for (int i = 0; i < 100; ++i) {
      auto res = cli.Get("/metrics");
      if (!res) return std::string("(no answer)");
      metrics = res->body;
      if (Contains(metrics, want)) break;
      std::this_thread::sleep_for(50ms);
    }
    return metrics;
  };
  WriteFile(config_, ",");
  std::string metrics = reload_and_wait("rxe_exporter_config_last_reload_successful 0\n");
  EXPECT_TRUE(Contains(metrics, "rxe_exporter_config_last_reload_successful 0\n")) << metrics;
  EXPECT_TRUE(Contains(metrics, "device=\"rxe0\"")) << "still collecting with the old config";
  EXPECT_TRUE(Contains(child_->Stderr(), "rxe_exporter.yml:1:1: invalid YAML: unexpected"))
      << child_->Stderr();

  const std::string peers = dir_.File("peers.yml");
  WriteFile(peers, "- {name: a, address: 127.0.0.1}\n");
  WriteFile(config_, testing::TestConfigYaml() + "peer_files: [peers.yml]\n");
  metrics = reload_and_wait("rxe_exporter_config_last_reload_successful 1\n");
  ASSERT_TRUE(Contains(metrics, "rxe_exporter_config_last_reload_successful 1\n")) << child_->Stderr();

  WriteFile(peers, ",");
  metrics = reload_and_wait("rxe_exporter_config_last_reload_successful 0\n");
  EXPECT_TRUE(Contains(metrics, "rxe_exporter_config_last_reload_successful 0\n")) << metrics;
  EXPECT_TRUE(Contains(child_->Stderr(), "peers.yml:1:1: invalid YAML: unexpected"))
      << child_->Stderr();
  EXPECT_EQ(cli.Get("/-/healthy")->status, 200);
  EXPECT_EQ(SignalAndWait(SIGTERM).first, 0);
}

}  // namespace
}  // namespace rxe::exporter
