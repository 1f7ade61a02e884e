// Loopback attacks on a running rxe_exporter binary (issue 17 items 1, 2):
// slowloris, idle-connection flood and header flood. Prints numbers; no
// pass/fail. Loopback only, bounded counts and time (~1 min worst case).
// Usage: http_attack_bench [path/to/rxe_exporter] [extra daemon flags...]
// The binary may be an old build, to measure "before" figures.
#include <arpa/inet.h>
#include <fcntl.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/exporter/test_util.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kRequestTimeout = 20s;  // a request that takes longer counts as stopped

struct Daemon {
  pid_t pid = -1;
  int port = -1;
  std::string log;
};

Daemon Spawn(const std::string& binary, const fs::path& dir, const std::vector<std::string>& extra) {
  Daemon d;
  static int n = 0;
  d.log = (dir / ("daemon." + std::to_string(++n) + ".log")).string();
  const std::string config = (dir / "c.yml").string();
  std::ofstream(config) << "collectors:\n  rdma_netlink: false\n  rtnetlink: false\n"
                           "  hw_counter_source: sysfs\nresponder:\n  enabled: false\n";
  std::vector<std::string> args{binary, "--config.file", config,
                                "--web.listen-address=127.0.0.1:0", "--path.sysfs",
                                std::string(RXE_FIXTURES_DIR) + "/sys"};
  args.insert(args.end(), extra.begin(), extra.end());
  d.pid = fork();
  if (d.pid == 0) {
    const int fd = open(d.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  const std::regex re("msg=listening address=127\\.0\\.0\\.1:([0-9]+)");
  for (auto end = Clock::now() + 10s; Clock::now() < end && d.port < 0;) {
    std::ifstream in(d.log);
    std::stringstream ss;
    ss << in.rdbuf();
    std::smatch m;
    const std::string text = ss.str();
    if (std::regex_search(text, m, re)) d.port = std::stoi(m[1]);
    std::this_thread::sleep_for(20ms);
  }
  return d;
}

void Kill(Daemon& d) {
  kill(d.pid, SIGKILL);
  waitpid(d.pid, nullptr, 0);
}

long StatusKiB(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) return std::stol(line.substr(key.size() + 1));
  }
  return -1;
}

long OpenFds(pid_t pid) {
  long n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != fs::directory_iterator(); ++it) {
    ++n;
  }
  return n;
}

int Connect(int port) { return rxe::exporter::testing::ConnectLoopback(port); }

/// "200 in 12 ms" or "no answer in 20 s".
std::string TimedGet(int port, const std::string& path) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(kRequestTimeout);
  c.set_read_timeout(kRequestTimeout);
  const auto start = Clock::now();
  auto res = c.Get(path);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  if (!res) return "no answer (" + std::to_string(ms.count()) + " ms)";
  return std::to_string(res->status) + " in " + std::to_string(ms.count()) + " ms";
}

void Slowloris(const std::string& binary, const fs::path& dir, const std::vector<std::string>& extra,
               int conns) {
  Daemon d = Spawn(binary, dir, extra);
  if (d.port < 0) {
    std::printf("daemon did not start, see %s\n", d.log.c_str());
    return;
  }
  std::vector<int> fds;
  for (int i = 0; i < conns; ++i) {
    const int fd = Connect(d.port);
    if (fd < 0) break;
    (void)send(fd, "GET /metrics HTTP/1.1\r\n", 23, MSG_NOSIGNAL);
    fds.push_back(fd);
  }
  std::atomic<bool> done{false};
  std::thread trickle([&] {  // one byte per connection every 2 s
    while (!done) {
      for (int fd : fds) (void)send(fd, "X", 1, MSG_NOSIGNAL);
      for (int i = 0; i < 20 && !done; ++i) std::this_thread::sleep_for(100ms);
    }
  });
  std::this_thread::sleep_for(500ms);
  const std::string healthy = TimedGet(d.port, "/-/healthy");
  const std::string metrics = TimedGet(d.port, "/metrics");
  auto still_open = [&fds] {
    int open = 0;
    for (int fd : fds) {
      pollfd p{fd, POLLIN, 0};
      char c;
      open += poll(&p, 1, 0) == 0 || recv(fd, &c, 1, MSG_DONTWAIT) > 0 ? 1 : 0;
    }
    return open;
  };
  const int open_now = still_open();
  std::this_thread::sleep_for(6s);  // past the default 5 s read timeout
  const int open = still_open();
  done = true;
  trickle.join();
  std::printf("| slowloris, %d connections, 1 byte / 2 s | /-/healthy: %s | /metrics: %s | "
              "attack connections open: %d, after 6.5 s: %d |\n",
              conns, healthy.c_str(), metrics.c_str(), open_now, open);
  for (int fd : fds) close(fd);
  Kill(d);
}

void IdleFlood(const std::string& binary, const fs::path& dir, const std::vector<std::string>& extra,
               int conns) {
  Daemon d = Spawn(binary, dir, extra);
  if (d.port < 0) return;
  const long fds_before = OpenFds(d.pid);
  std::vector<int> fds;
  for (int i = 0; i < conns; ++i) {
    const int fd = Connect(d.port);
    if (fd < 0) break;
    fds.push_back(fd);
  }
  std::this_thread::sleep_for(500ms);
  const long fds_during = OpenFds(d.pid);
  const std::string metrics = TimedGet(d.port, "/metrics");
  std::printf("| %d idle connections | daemon fds %ld -> %ld | /metrics: %s |\n",
              static_cast<int>(fds.size()), fds_before, fds_during, metrics.c_str());
  for (int fd : fds) close(fd);
  Kill(d);
}

void HeaderFlood(const std::string& binary, const fs::path& dir,
                 const std::vector<std::string>& extra, size_t bytes) {
  Daemon d = Spawn(binary, dir, extra);
  if (d.port < 0) return;
  const long rss_before = StatusKiB(d.pid, "VmRSS");
  const int fd = Connect(d.port);
  const std::string line = "X-Pad: " + std::string(4000, 'a') + "\r\n";
  const auto start = Clock::now();
  std::thread sender([&] {
    const std::string head = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
    (void)send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    for (size_t sent = 0; sent < bytes; sent += line.size()) {
      if (send(fd, line.data(), line.size(), MSG_NOSIGNAL) < 0) return;
    }
    (void)send(fd, "\r\n", 2, MSG_NOSIGNAL);
  });
  std::string answer;
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 60000) <= 0) break;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    answer.append(buf, static_cast<size_t>(n));
    if (answer.find("\r\n\r\n") != std::string::npos) break;
  }
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  const long rss_peak = StatusKiB(d.pid, "VmHWM");
  shutdown(fd, SHUT_RDWR);
  sender.join();
  close(fd);
  std::this_thread::sleep_for(1s);
  const long rss_after = StatusKiB(d.pid, "VmRSS");
  const std::string status = answer.substr(0, answer.find("\r\n"));
  std::printf("| header flood, %zu MB of header lines | answer: \"%s\" in %lld ms | RSS before "
              "%.1f MiB, peak %.1f MiB, 1 s after close %.1f MiB |\n",
              bytes >> 20, status.c_str(), static_cast<long long>(ms.count()), rss_before / 1024.0,
              rss_peak / 1024.0, rss_after / 1024.0);
  Kill(d);
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  const std::string binary = argc > 1 ? argv[1] : "build/exporter/rxe_exporter";
  std::vector<std::string> extra(argv + std::min(argc, 2), argv + argc);
  const fs::path dir = fs::temp_directory_path() / ("http_attack_bench." + std::to_string(getpid()));
  fs::create_directories(dir);
  std::printf("binary: %s\n", binary.c_str());
  Slowloris(binary, dir, extra, 8);
  Slowloris(binary, dir, extra, 64);
  IdleFlood(binary, dir, extra, 2000);
  HeaderFlood(binary, dir, extra, 256u << 20);
  fs::remove_all(dir);
  return 0;
}
