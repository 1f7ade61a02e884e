// Issue 17 items 1 and 2: slow and many clients must not stop the listener,
// and request heads are bounded (431). In-process App on loopback, attacked
// with raw sockets; the RSS check runs the built binary.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include "exporter/http_server.h"
#include "exporter/listen_address.h"
#include "tests/exporter/test_util.h"

namespace rxe::exporter {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

int Connect(int port) { return testing::ConnectLoopback(port); }

/// True once the server has closed `fd` (EOF or reset), waiting up to `limit`.
bool ClosedByServer(int fd, std::chrono::milliseconds limit) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(limit.count())) <= 0) return false;
  char c;
  return recv(fd, &c, 1, MSG_DONTWAIT) <= 0;
}

/// Sends `head` then `filler` repeatedly (up to `total` bytes) from a thread,
/// and returns what the server answers on the same connection.
std::string FloodAndRead(int port, const std::string& head, const std::string& filler,
                         size_t total) {
  const int fd = Connect(port);
  if (fd < 0) return "";
  std::thread sender([&] {
    (void)send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    for (size_t sent = 0; sent < total; sent += filler.size()) {
      if (send(fd, filler.data(), filler.size(), MSG_NOSIGNAL) < 0) return;
    }
    (void)send(fd, "\r\n", 2, MSG_NOSIGNAL);
  });
  std::string out;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 20000) <= 0) break;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  shutdown(fd, SHUT_RDWR);
  sender.join();
  close(fd);
  return out;
}

class HttpHardeningTest : public ::testing::Test {
 protected:
  void Start(std::vector<std::string> extra = {}) {
    config_ = dir_.File("rxe_exporter.yml");
    testing::WriteFile(config_, testing::TestConfigYaml("rxe.*"));
    std::vector<std::string> args{"--config.file", config_, "--web.listen-address=127.0.0.1:0",
                                  "--path.sysfs", std::string(RXE_FIXTURES_DIR) + "/sys"};
    args.insert(args.end(), extra.begin(), extra.end());
    app_ = testing::StartApp(args);
    port_ = app_->BoundPorts().at(0);
  }
  /// GET `path` on a new connection; the status, or -1 when there is no
  /// answer within `timeout`.
  int Get(const std::string& path, std::chrono::seconds timeout = 4s) {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(timeout);
    c.set_read_timeout(timeout);
    auto res = c.Get(path);
    return res ? res->status : -1;
  }

  testing::TempDir dir_;
  std::string config_;
  std::unique_ptr<App> app_;
  int port_ = 0;
};

// Before: 8 workers per listener and a 5 s timeout per read, so 8 trickling
// connections held every worker and /metrics, /-/healthy timed out.
TEST_F(HttpHardeningTest, TricklingClientsDoNotStopMetricsOrHealthy) {
  Start();
  constexpr int kSlow = 24;
  std::vector<int> fds;
  for (int i = 0; i < kSlow; ++i) {
    const int fd = Connect(port_);
    ASSERT_GE(fd, 0);
    (void)send(fd, "GET /metrics HTTP/1.1\r\n", 23, MSG_NOSIGNAL);
    fds.push_back(fd);
  }
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    while (!done) {
      for (int fd : fds) (void)send(fd, "X", 1, MSG_NOSIGNAL);
      std::this_thread::sleep_for(200ms);
    }
  });
  std::this_thread::sleep_for(300ms);  // every slow connection has been accepted
  EXPECT_EQ(Get("/-/healthy"), 200);
  EXPECT_EQ(Get("/metrics"), 200);
  done = true;
  trickle.join();
  for (int fd : fds) close(fd);
}

// Before: the 5 s timeout applied to each read, so a byte every 200 ms kept a
// connection (and its worker) forever.
TEST_F(HttpHardeningTest, TricklingClientIsClosedAtTheRequestDeadline) {
  Start({"--web.read-timeout=1s"});
  const int fd = Connect(port_);
  ASSERT_GE(fd, 0);
  (void)send(fd, "GET /metrics HTTP/1.1\r\n", 23, MSG_NOSIGNAL);
  const auto start = Clock::now();
  bool closed = false;
  while (!closed && Clock::now() - start < 6s) {
    if (send(fd, "X", 1, MSG_NOSIGNAL) < 0) break;
    closed = ClosedByServer(fd, 200ms);
  }
  EXPECT_TRUE(closed) << "still open after 6 s of trickling, with --web.read-timeout=1s";
  close(fd);
}

// Before: every idle connection was queued for a worker (unbounded queue), so
// a few hundred of them delayed /metrics by their timeouts and held fds.
TEST_F(HttpHardeningTest, IdleConnectionsAreCappedAndMetricsStillAnswers) {
  Start({"--web.max-connections=16"});
  constexpr int kIdle = 200;
  std::vector<int> fds;
  for (int i = 0; i < kIdle; ++i) {
    const int fd = Connect(port_);
    ASSERT_GE(fd, 0) << "connection " << i;
    fds.push_back(fd);
  }
  EXPECT_EQ(Get("/metrics"), 200);
  EXPECT_EQ(Get("/-/healthy"), 200);
  int closed = 0;
  for (int fd : fds) closed += ClosedByServer(fd, 1ms) ? 1 : 0;
  EXPECT_GE(closed, kIdle - 16) << "at most --web.max-connections stay open";
  for (int fd : fds) close(fd);
}

// Before: header lines were read without a limit (315 MB were accepted).
TEST_F(HttpHardeningTest, OversizedHeadGets431) {
  Start();
  const std::string answer = FloodAndRead(port_, "GET /metrics HTTP/1.1\r\nHost: x\r\n",
                                          "X-Pad: " + std::string(1000, 'a') + "\r\n", 8 << 20);
  EXPECT_EQ(answer.rfind("HTTP/1.1 431 ", 0), 0u) << answer.substr(0, 200);
}

TEST_F(HttpHardeningTest, TooManyHeaderLinesGet431) {
  Start();
  std::string req = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 150; ++i) req += "X-" + std::to_string(i) + ": 1\r\n";
  const std::string answer = FloodAndRead(port_, req, "", 0);
  EXPECT_EQ(answer.rfind("HTTP/1.1 431 ", 0), 0u) << answer.substr(0, 200);
  // ... and the refusal is visible on /metrics.
  const std::string metrics = app_->RenderMetrics();
  const std::string bound = app_->BoundAddresses().at(0);
  EXPECT_NE(metrics.find("rxe_exporter_http_headers_too_large_total{listener=\"" + bound + "\"} 1\n"),
            std::string::npos)
      << bound;
}

TEST_F(HttpHardeningTest, HeadWithinTheLimitsIsServed) {
  Start({"--web.max-header-bytes=32KiB"});
  std::string req = "GET /-/healthy HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  for (int i = 0; i < 90; ++i) req += "X-" + std::to_string(i) + ": " + std::string(200, 'v') + "\r\n";
  const std::string answer = FloodAndRead(port_, req, "", 0);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200 ", 0), 0u) << answer.substr(0, 200);
}

long VmRssKiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// Before: the daemon grew by the size of the header flood (16 -> 682 MiB for
// 315 MB) and kept it after the connection closed.
TEST(HttpHardeningBinaryTest, HeaderFloodDoesNotGrowTheDaemon) {
  testing::TempDir dir;
  const std::string config = dir.File("c.yml");
  testing::WriteFile(config, testing::TestConfigYaml());
  testing::Child child({"--config.file", config, "--web.listen-address=127.0.0.1:0"}, dir.path());
  const int port = child.WaitForListenPort(10s);
  ASSERT_GT(port, 0) << child.Stderr();
  const long before = VmRssKiB(child.pid());
  const std::string answer = FloodAndRead(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n",
                                          "X-Pad: " + std::string(4000, 'a') + "\r\n", 64 << 20);
  EXPECT_EQ(answer.rfind("HTTP/1.1 431 ", 0), 0u) << answer.substr(0, 200);
  const long after = VmRssKiB(child.pid());
  ASSERT_GT(before, 0);
  EXPECT_LT(after - before, 8 * 1024) << "RSS " << before << " -> " << after << " KiB";
}

// A client that reads a large response slowly but steadily (every write makes progress) is cut
// off at the response's write deadline: one deadline per response, not one per write. Before,
// 64 KiB every 20 ms kept the connection (and its thread) for the whole 64 MiB, ~20 s.
TEST(HttpServerTest, SlowReaderIsCutOffAtTheResponseDeadline) {
  auto addr = ParseListenAddress("127.0.0.1:0");
  ASSERT_TRUE(addr.ok());
  HttpLimits limits;
  limits.write_timeout = 1000ms;
  HttpServer server(*addr, nullptr, limits);
  const std::string big(64 << 20, 'x');
  server.server().Get("/big", [&big](const httplib::Request&, httplib::Response& res) {
    res.set_content(big, "text/plain");
  });
  ASSERT_TRUE(server.Bind().ok());
  server.Start();
  const int fd = Connect(server.port());
  ASSERT_GE(fd, 0);
  const std::string req = "GET /big HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  const auto start = Clock::now();
  std::vector<char> buf(64 << 10);
  size_t got = 0;
  bool closed = false;
  while (Clock::now() - start < 8s) {
    const ssize_t n = recv(fd, buf.data(), buf.size(), MSG_DONTWAIT);
    if (n > 0) got += static_cast<size_t>(n);
    if (got > 0 && server.stats().open == 0) {  // the response began: it was accepted
      closed = true;
      break;
    }
    std::this_thread::sleep_for(20ms);
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  close(fd);
  EXPECT_TRUE(closed) << "the slow reader still held its connection after " << took.count()
                      << " ms (read " << got << " bytes)";
  EXPECT_LT(got, big.size());
  server.Stop();
  EXPECT_TRUE(server.Join(Clock::now() + 5s));
}

}  // namespace
}  // namespace rxe::exporter
