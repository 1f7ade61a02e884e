// sd_notify protocol of the binary, observed on a fake $NOTIFY_SOCKET.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include <httplib.h>

#include "tests/exporter/test_util.h"

namespace rxe::exporter {
namespace {

using namespace std::chrono_literals;

class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) : path_(path) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    path.copy(a.sun_path, sizeof a.sun_path - 1);
    bound_ = bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~NotifySocket() { close(fd_); }
  bool bound() const { return bound_; }

  /// Reads datagrams until one contains `what`; returns it ("" on timeout).
  std::string WaitFor(const std::string& what, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      timeval tv{0, 50 * 1000};
      setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      char buf[4096];
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) continue;
      std::string msg(buf, static_cast<size_t>(n));
      if (msg.find(what) != std::string::npos) return msg;
    }
    return "";
  }

 private:
  std::string path_;
  int fd_ = -1;
  bool bound_ = false;
};

/// The binary with a fake $NOTIFY_SOCKET and a 400 ms watchdog.
struct NotifiedDaemon {
  testing::TempDir dir;
  const std::string config = dir.File("c.yml");
  NotifySocket sock{dir.File("notify.sock")};
  testing::Child child{[this] {
                         testing::WriteFile(config, testing::TestConfigYaml());
                         return std::vector<std::string>{"--config.file", config,
                                                         "--web.listen-address=127.0.0.1:0"};
                       }(),
                       dir.path(),
                       {"NOTIFY_SOCKET=" + dir.File("notify.sock"), "WATCHDOG_USEC=400000"}};
};

TEST(Notify, ReadyWatchdogReloadStopping) {
  NotifiedDaemon d;
  ASSERT_TRUE(d.sock.bound());
  NotifySocket& sock = d.sock;
  testing::Child& child = d.child;

  const std::string ready = sock.WaitFor("READY=1", 10s);
  EXPECT_NE(ready, "") << child.Stderr();
  EXPECT_GT(child.WaitForListenPort(1s), 0) << "READY=1 comes after the listeners are bound";
  EXPECT_NE(sock.WaitFor("WATCHDOG=1", 2s), "") << "pinged at half of WATCHDOG_USEC";

  kill(child.pid(), SIGHUP);
  const std::string reloading = sock.WaitFor("RELOADING=1", 5s);
  EXPECT_NE(reloading.find("MONOTONIC_USEC="), std::string::npos) << reloading;
  EXPECT_NE(sock.WaitFor("READY=1", 5s), "") << "READY=1 again after the reload";

  kill(child.pid(), SIGTERM);
  EXPECT_NE(sock.WaitFor("STOPPING=1", 5s), "");
  EXPECT_EQ(child.Wait(5s), 0);
}

// Issue 17 item 6: a reload that hangs (here: a peer file that is a FIFO
// nobody writes, as on a stalled mount) runs off the main loop, so the
// watchdog is still pinged, scrapes still work, and SIGTERM still exits.
TEST(Notify, HungReloadKeepsWatchdogAndExit) {
  NotifiedDaemon d;
  ASSERT_TRUE(d.sock.bound());
  NotifySocket& sock = d.sock;
  testing::Child& child = d.child;
  const testing::TempDir& dir = d.dir;
  const std::string& config = d.config;
  ASSERT_NE(sock.WaitFor("READY=1", 10s), "") << child.Stderr();
  const int port = child.WaitForListenPort(1s);
  ASSERT_GT(port, 0);

  ASSERT_EQ(mkfifo(dir.File("stuck.yml").c_str(), 0600), 0);
  testing::WriteFile(config, testing::TestConfigYaml() + "peer_files: [\"stuck.yml\"]\n");
  kill(child.pid(), SIGHUP);
  ASSERT_NE(sock.WaitFor("RELOADING=1", 5s), "");
  EXPECT_NE(sock.WaitFor("WATCHDOG=1", 2s), "") << "no watchdog ping while the reload hangs";
  httplib::Client c("127.0.0.1", port);
  c.set_read_timeout(5s);
  auto res = c.Get("/metrics");
  ASSERT_TRUE(res) << "a scrape waited for the hung reload";
  EXPECT_EQ(res->status, 200);

  kill(child.pid(), SIGTERM);
  EXPECT_EQ(child.Wait(5s), 0) << child.Stderr();
}

}  // namespace
}  // namespace rxe::exporter
