// Scrape cost with many (module, peer) pairs (issue 17 item 5): the built rxe_exporter as a
// child process with `peers` file peers x 4 modules (write_bw, send_bw, send_lat, write_lat;
// the peers are 127.0.0.1 on a closed port, so probes fail at connect, as towards hosts
// that are down), sysfs from the fixtures, responder off. Prints the daemon's VmRSS before
// any scrape, after scrapes 1, 2, 3 (one at a time) and after rounds of 4 concurrent
// scrapes, plus each scrape's size, series count and time. No pass/fail.
// Usage: scrape_bench [peers=10000] [concurrent_rounds=2] [binary [legacy]]
//   binary: another rxe_exporter (default: the one in this build); legacy: a build from
//   before prober.max_pairs existed (the key is left out of the config).
#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double VmKiB(pid_t pid, const char* field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::atof(line.c_str() + std::strlen(field) + 1);
  }
  return -1;
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

struct Scrape {
  bool ok = false;
  size_t bytes = 0;
  size_t series = 0;
  double seconds = 0;
};

Scrape Get(int port) {
  httplib::Client cli("127.0.0.1", port);
  cli.set_read_timeout(600, 0);
  cli.set_decompress(false);
  Scrape s;
  const auto t0 = Clock::now();
  auto res = cli.Get("/metrics", {{"Accept-Encoding", "identity"}});
  s.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!res || res->status != 200) return s;
  s.ok = true;
  s.bytes = res->body.size();
  size_t pos = 0;
  while (pos < res->body.size()) {
    size_t end = res->body.find('\n', pos);
    if (end == std::string::npos) end = res->body.size();
    if (end > pos && res->body[pos] != '#') ++s.series;
    pos = end + 1;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const int peers = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 2;
  const fs::path binary =
      fs::canonical(argc > 3 ? fs::path(argv[3])
                             : fs::path(argv[0]).parent_path() / "../exporter/rxe_exporter");
  const bool legacy = argc > 4 && std::string(argv[4]) == "legacy";
  const fs::path dir = fs::temp_directory_path() / ("scrape_bench." + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    std::ofstream p(dir / "peers.yml");
    for (int i = 0; i < peers; ++i) {
      p << "- {name: host-" << i << ", address: 127.0.0.1, port: 9}\n";
    }
    std::ofstream c(dir / "rxe_exporter.yml");
    c << "collectors: {rdma_netlink: false, rtnetlink: false, hw_counter_source: sysfs}\n"
         "responder: {enabled: false}\n"
      << (legacy ? "" : "prober: {max_pairs: " + std::to_string(4 * peers) + "}\n")
      << "peer_files: [peers.yml]\n"
         "modules:\n"
         "  bw: {type: write_bw}\n  sbw: {type: send_bw}\n"
         "  lat: {type: send_lat}\n  wlat: {type: write_lat}\n";
  }
  const int port = FreePort();
  const std::string listen = "--web.listen-address=127.0.0.1:" + std::to_string(port);
  const std::string conf = "--config.file=" + (dir / "rxe_exporter.yml").string();
  const std::string sysfs = std::string("--path.sysfs=") + RXE_FIXTURES_DIR + "/sys";
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen((dir / "daemon.log").c_str(), "w", stderr);
    execl(binary.c_str(), "rxe_exporter", conf.c_str(), listen.c_str(), sysfs.c_str(),
          "--log.level=error", static_cast<char*>(nullptr));
    _exit(127);
  }
  httplib::Client probe("127.0.0.1", port);
  const auto start = Clock::now();
  for (;;) {
    auto r = probe.Get("/-/ready");
    if (r && r->status == 200) break;
    if (Clock::now() - start > std::chrono::seconds(120)) {
      std::fprintf(stderr, "daemon not ready; see %s\n", (dir / "daemon.log").c_str());
      kill(pid, SIGKILL);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::printf("rxe_exporter %s, %d peers x 4 modules = %d pairs\n", binary.c_str(), peers,
              4 * peers);
  std::printf("%-28s %10s %12s %10s %10s\n", "step", "VmRSS MiB", "bytes", "series", "seconds");
  const auto row = [&](const std::string& step, const Scrape* s) {
    const double rss = VmKiB(pid, "VmRSS") / 1024;
    if (s == nullptr) {
      std::printf("%-28s %10.1f\n", step.c_str(), rss);
    } else {
      std::printf("%-28s %10.1f %12zu %10zu %10.2f%s\n", step.c_str(), rss, s->bytes, s->series,
                  s->seconds, s->ok ? "" : "  FAILED");
    }
    std::fflush(stdout);
  };
  row("ready, no scrape yet", nullptr);
  for (int i = 1; i <= 3; ++i) {
    Scrape s = Get(port);
    row("scrape " + std::to_string(i), &s);
  }
  for (int r = 1; r <= rounds; ++r) {
    std::vector<Scrape> got(4);
    std::vector<std::thread> threads;
    const auto t0 = Clock::now();
    for (auto& g : got) threads.emplace_back([&g, port] { g = Get(port); });
    for (auto& t : threads) t.join();
    Scrape all = got[0];
    all.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    for (const auto& g : got) all.ok = all.ok && g.ok;
    row("4 concurrent, round " + std::to_string(r), &all);
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  row("2 s later", nullptr);
  std::printf("VmHWM %.1f MiB\n", VmKiB(pid, "VmHWM") / 1024);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  fs::remove_all(dir);
  return 0;
}
