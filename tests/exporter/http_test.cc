// In-process integration tests: a real App serving on loopback (IPv4 and
// IPv6), scraped with httplib::Client; sysfs from tests/fixtures/sys.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "exporter/cli.h"
#include "exporter/scrape.h"
#include "tests/exporter/test_util.h"

namespace rxe::exporter {
namespace {

using testing::TempDir;
using testing::WriteFile;

bool HasIpv6Loopback() {
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

bool Contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

class HttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = dir_.File("rxe_exporter.yml");
    WriteFile(config_, testing::TestConfigYaml("rxe.*"));
  }
  void Start(std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--config.file", config_, "--web.listen-address=127.0.0.1:0",
                                  "--path.sysfs", std::string(RXE_FIXTURES_DIR) + "/sys"};
    if (HasIpv6Loopback()) args.push_back("--web.listen-address=[::1]:0");
    args.insert(args.end(), extra.begin(), extra.end());
    app_ = testing::StartApp(args);
  }
  httplib::Client Client(size_t listener = 0) {
    const int port = app_->BoundPorts().at(listener);
    return httplib::Client(listener == 0 ? "127.0.0.1" : "::1", port);
  }
  std::string Metrics() {
    auto res = Client().Get("/metrics");
    return res ? res->body : "";
  }

  TempDir dir_;
  std::string config_;
  std::unique_ptr<App> app_;
};

TEST_F(HttpTest, LandingPage) {
  Start();
  auto res = Client().Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_TRUE(Contains(res->body, "<title>rxe_exporter</title>"));
  EXPECT_TRUE(Contains(res->body, "href=\"metrics\""));
  EXPECT_TRUE(Contains(res->body, "href=\"-/healthy\""));
  EXPECT_TRUE(Contains(res->body, "href=\"-/ready\""));
  EXPECT_TRUE(Contains(res->body, "href=\"debug/probes\""));
}

TEST_F(HttpTest, MetricsOnEveryListener) {
  Start();
  for (size_t i = 0; i < app_->BoundPorts().size(); ++i) {
    SCOPED_TRACE(app_->BoundAddresses()[i]);
    auto res = Client(i).Get("/metrics");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_EQ(res->get_header_value("Content-Type"), kTextContentType);
    const std::string& body = res->body;
    EXPECT_TRUE(Contains(body, "rxe_exporter_scrape_collector_success{collector=\"sysfs\"} 1\n"));
    EXPECT_TRUE(
        Contains(body, "rxe_exporter_scrape_collector_duration_seconds{collector=\"sysfs\"} "));
    EXPECT_TRUE(Contains(body, "# TYPE rxe_exporter_build_info gauge\n"));
    EXPECT_TRUE(Contains(body, "rxe_exporter_config_last_reload_successful 1\n"));
    EXPECT_TRUE(Contains(body, "rxe_exporter_config_last_reload_success_timestamp_seconds "));
    EXPECT_TRUE(Contains(body, "device=\"rxe0\""));
    EXPECT_FALSE(Contains(body, "device=\"mlx5_0\"")) << "excluded by devices.include";
    EXPECT_FALSE(Contains(body, "collector=\"rdma_netlink\"")) << "disabled in the config";
  }
}

TEST_F(HttpTest, PromtoolAcceptsTheOutput) {
  if (access("/usr/bin/promtool", X_OK) != 0)
    GTEST_SKIP() << "promtool (Debian package prometheus) not installed";
  WriteFile(config_, testing::TestConfigYaml(".*"));
  Start();
  const std::string metrics = dir_.File("metrics.txt"), out = dir_.File("promtool.out");
  WriteFile(metrics, Metrics());
  const int rc =
      std::system(("/usr/bin/promtool check metrics < " + metrics + " > " + out + " 2>&1").c_str());
  EXPECT_EQ(rc, 0) << testing::ReadFile(out);
}

TEST_F(HttpTest, EmptySysfsIsNoDataNotFailure) {
  TempDir empty;
  std::vector<std::string> args{"--config.file", config_, "--web.listen-address=127.0.0.1:0",
                                "--path.sysfs", empty.path()};
  app_ = testing::StartApp(args);
  EXPECT_TRUE(
      Contains(Metrics(), "rxe_exporter_scrape_collector_success{collector=\"sysfs\"} 1\n"));
}

TEST_F(HttpTest, HealthyAndReady) {
  Start();
  auto healthy = Client().Get("/-/healthy");
  ASSERT_TRUE(healthy);
  EXPECT_EQ(healthy->status, 200);
  EXPECT_EQ(healthy->body, "Healthy\n");
  auto ready = Client().Get("/-/ready");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  EXPECT_EQ(ready->body, "Ready\n");
  auto probes = Client().Get("/debug/probes");
  ASSERT_TRUE(probes);
  EXPECT_EQ(probes->status, 200);
  EXPECT_EQ(probes->get_header_value("Content-Type"), "application/json");
  auto missing = Client().Get("/nope");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST_F(HttpTest, ReloadOnlyByPost) {
  Start();
  auto get = Client().Get("/-/reload");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
  auto put = Client().Put("/-/reload", "", "text/plain");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
}

TEST_F(HttpTest, ReloadGoodThenBadThenGood) {
  Start();
  EXPECT_FALSE(Contains(Metrics(), "device=\"mlx5_0\""));

  WriteFile(config_, testing::TestConfigYaml(".*"));
  auto good = Client().Post("/-/reload");
  ASSERT_TRUE(good);
  EXPECT_EQ(good->status, 200);
  EXPECT_EQ(good->body, "Reloaded\n");
  std::string m = Metrics();
  EXPECT_TRUE(Contains(m, "device=\"mlx5_0\"")) << "the new device filter is in use";
  EXPECT_TRUE(Contains(m, "rxe_exporter_config_last_reload_successful 1\n"));

  WriteFile(config_, testing::TestConfigYaml(".*") + "collectors_typo: {}\n");
  auto bad = Client().Post("/-/reload", "", "text/plain");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 500);
  EXPECT_EQ(bad->body.rfind("failed to reload config: ", 0), 0u) << bad->body;
  EXPECT_TRUE(Contains(bad->body, "rxe_exporter.yml:")) << bad->body;
  EXPECT_TRUE(Contains(bad->body, "collectors_typo")) << bad->body;
  m = Metrics();
  EXPECT_TRUE(Contains(m, "rxe_exporter_config_last_reload_successful 0\n"));
  EXPECT_TRUE(Contains(m, "device=\"mlx5_0\"")) << "the running config is kept";
  EXPECT_TRUE(app_->ready());

  WriteFile(config_, testing::TestConfigYaml("rxe.*"));
  auto fixed = Client().Post("/-/reload");
  ASSERT_TRUE(fixed);
  EXPECT_EQ(fixed->status, 200);
  m = Metrics();
  EXPECT_TRUE(Contains(m, "rxe_exporter_config_last_reload_successful 1\n"));
  EXPECT_FALSE(Contains(m, "device=\"mlx5_0\""));
}

TEST_F(HttpTest, CustomTelemetryPath) {
  Start({"--web.telemetry-path=/rxe/metrics"});
  auto res = Client().Get("/rxe/metrics");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(Client().Get("/metrics")->status, 404);
  EXPECT_TRUE(Contains(Client().Get("/")->body, "href=\"rxe/metrics\""));
}

TEST_F(HttpTest, PeerFileChangesTriggerReload) {
  WriteFile(config_, testing::TestConfigYaml() + "peer_files: [\"peers/*.yml\"]\n");
  std::filesystem::create_directories(dir_.File("peers"));
  Start();
  EXPECT_FALSE(app_->PollPeerFiles()) << "nothing changed yet";

  WriteFile(dir_.File("peers/a.yml"), "- {name: host-a, address: 192.0.2.1}\n");
  EXPECT_TRUE(app_->PollPeerFiles());
  EXPECT_TRUE(app_->reload_status().last_successful);
  EXPECT_FALSE(app_->PollPeerFiles()) << "stamps are updated after a reload";

  WriteFile(dir_.File("peers/a.yml"), "- {name: host-a}\n");  // address missing
  EXPECT_TRUE(app_->PollPeerFiles());
  EXPECT_FALSE(app_->reload_status().last_successful);
  EXPECT_FALSE(app_->PollPeerFiles()) << "a failed reload is not retried until the next change";
  EXPECT_TRUE(Contains(Metrics(), "rxe_exporter_config_last_reload_successful 0\n"));

  std::filesystem::remove(dir_.File("peers/a.yml"));
  EXPECT_TRUE(app_->PollPeerFiles());
  EXPECT_TRUE(app_->reload_status().last_successful);
}

// The same with a Prometheus file_sd file (JSON): the probed pairs follow the file, without
// prober.self; a bad file keeps the running pairs.
TEST_F(HttpTest, FileSdPeerFileChangesTriggerReload) {
  WriteFile(config_, testing::TestConfigYaml() +
                         "prober: {self: {name: \"127.0.0.1:1\"}}\n"
                         "peer_files: [\"sd/*.json\"]\n"
                         "modules:\n  lat: {type: send_lat, interval: 1h, timeout: 1s}\n");
  std::filesystem::create_directories(dir_.File("sd"));
  Start();
  const auto probed = [&](const std::string& peer) {
    auto res = Client().Get("/debug/probes");
    return res && Contains(res->body, "\"peer\":\"" + peer + "\"");
  };
  EXPECT_FALSE(probed("127.0.0.2:1"));

  WriteFile(dir_.File("sd/a.json"),
            R"([{"targets": ["127.0.0.1:1", "127.0.0.2:1"], "labels": {"rack": "r1"}},)"
            R"( {"targets": ["127.0.0.3:1"], "labels": {"rack": "r2", "__meta_x": "y"}}])");
  EXPECT_TRUE(app_->PollPeerFiles());
  EXPECT_TRUE(app_->reload_status().last_successful);
  EXPECT_TRUE(probed("127.0.0.2:1"));
  EXPECT_TRUE(probed("127.0.0.3:1"));
  EXPECT_FALSE(probed("127.0.0.1:1")) << "prober.self is never probed";

  WriteFile(dir_.File("sd/a.json"), R"([{"targets": ["127.0.0.2:1"], "labels": {"rack": 2}}])");
  EXPECT_TRUE(app_->PollPeerFiles());
  EXPECT_FALSE(app_->reload_status().last_successful) << "JSON label values must be strings";
  EXPECT_TRUE(probed("127.0.0.3:1")) << "the running pairs are kept";

  WriteFile(dir_.File("sd/a.json"), R"([{"targets": ["127.0.0.3:1"]}])");
  EXPECT_TRUE(app_->PollPeerFiles());
  EXPECT_TRUE(app_->reload_status().last_successful);
  EXPECT_TRUE(probed("127.0.0.3:1"));
  EXPECT_FALSE(probed("127.0.0.2:1"));
}

TEST_F(HttpTest, ConcurrentScrapesAreSafe) {
  Start({"--web.max-requests=0"});
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      auto cli = Client();
      for (int i = 0; i < 10; ++i) {
        auto res = cli.Get("/metrics");
        if (res && res->status == 200 && Contains(res->body, "device=\"rxe0\"")) ++ok;
      }
    });
  }
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(app_->Reload("test").ok());
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 40);
}

TEST_F(HttpTest, StopIsQuickWithIdleKeepAliveConnection) {
  Start();
  auto cli = Client();
  cli.set_keep_alive(true);
  ASSERT_TRUE(cli.Get("/-/healthy"));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(app_->Stop(t0 + std::chrono::seconds(2)));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(1500));
  EXPECT_FALSE(app_->ready());
}

TEST_F(HttpTest, BindErrorIsReported) {
  Start();
  const int port = app_->BoundPorts()[0];
  CommandLine cl = ParseCommandLine(
      {"--config.file", config_, "--web.listen-address", "127.0.0.1:" + std::to_string(port)});
  App second(cl.flags);
  Status st = second.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "cannot listen on 127.0.0.1:" + std::to_string(port) + ": Address already in use");
}

TEST_F(HttpTest, ExplicitMissingConfigFileIsAnError) {
  CommandLine cl = ParseCommandLine(
      {"--config.file", dir_.File("missing.yml"), "--web.listen-address=127.0.0.1:0"});
  App app(cl.flags);
  Status st = app.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(Contains(st.error().message, "missing.yml")) << st.error().message;
}

}  // namespace
}  // namespace rxe::exporter
