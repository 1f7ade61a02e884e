// /metrics under load (issue 14 item 6): CLIENTS threads GET a URL path in a loop for SECONDS
// against a running daemon, while SLOW_HTTP connections trickle a request head to the HTTP
// port (slowloris) and SLOW_CTL connections trickle bytes to the probe control port.
// Prints latency percentiles of the answered requests, the status counts (503 = refused by
// --web.max-requests) and what the slow connections got. No pass/fail: the lab script
// (tests/lab/bench/metrics_load.sh) judges.
// Usage: metrics_load_bench HOST HTTP_PORT CTL_PORT CLIENTS SECONDS SLOW_HTTP SLOW_CTL [PATH]
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct ClientStats {
  std::vector<double> ms;          // latency of every answered request
  std::map<int, uint64_t> status;  // HTTP status -> count; -1 = no answer (error/timeout)
  uint64_t bytes = 0;
};

int ConnectTo(const std::string& host, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

/// Trickles one byte per connection every 500 ms after `head`; counts the connections the
/// server closed (EOF/reset) and when the first and last were closed.
struct SlowResult {
  int opened = 0;
  int closed_by_server = 0;
  double first_close_s = -1;
  double last_close_s = -1;
};

SlowResult Slow(const std::string& host, int port, int n, const std::string& head,
                Clock::time_point until) {
  SlowResult r;
  std::vector<int> fds;
  for (int i = 0; i < n; ++i) {
    const int fd = ConnectTo(host, port);
    if (fd < 0) continue;
    (void)::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
    fds.push_back(fd);
  }
  r.opened = static_cast<int>(fds.size());
  const auto t0 = Clock::now();
  std::vector<bool> open(fds.size(), true);
  while (Clock::now() < until) {
    for (size_t i = 0; i < fds.size(); ++i) {
      if (!open[i]) continue;
      pollfd p{fds[i], POLLIN, 0};
      char c[256];
      bool closed = false;
      if (::poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
        closed = ::recv(fds[i], c, sizeof c, MSG_DONTWAIT) <= 0;
      }
      if (!closed && ::send(fds[i], "X", 1, MSG_NOSIGNAL) < 0) closed = true;
      if (closed) {
        open[i] = false;
        ++r.closed_by_server;
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        if (r.first_close_s < 0) r.first_close_s = s;
        r.last_close_s = s;
      }
    }
    std::this_thread::sleep_for(500ms);
  }
  for (int fd : fds) ::close(fd);
  return r;
}

double Percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i), v.end());
  return v[i];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr,
                 "usage: %s HOST HTTP_PORT CTL_PORT CLIENTS SECONDS SLOW_HTTP SLOW_CTL [PATH]\n",
                 argv[0]);
    return 2;
  }
  const std::string host = argv[1];
  const int http_port = std::atoi(argv[2]);
  const int ctl_port = std::atoi(argv[3]);
  const int clients = std::atoi(argv[4]);
  const int seconds = std::atoi(argv[5]);
  const int slow_http = std::atoi(argv[6]);
  const int slow_ctl = std::atoi(argv[7]);
  const std::string path = argc > 8 ? argv[8] : "/metrics";
  if (clients < 0 || clients > 1000 || seconds <= 0 || seconds > 600 || slow_http < 0 ||
      slow_http > 1000 || slow_ctl < 0 || slow_ctl > 1000) {
    std::fprintf(stderr, "bounds: CLIENTS, SLOW_* 0..1000, SECONDS 1..600\n");
    return 2;
  }
  const auto start = Clock::now();
  const auto until = start + std::chrono::seconds(seconds);

  SlowResult slow_http_result, slow_ctl_result;
  std::thread slow_http_thread([&] {
    slow_http_result = Slow(host, http_port, slow_http, "GET " + path + " HTTP/1.1\r\nHost: x\r\n",
                            until);
  });
  std::thread slow_ctl_thread([&] { slow_ctl_result = Slow(host, ctl_port, slow_ctl, "", until); });

  std::mutex mu;
  ClientStats all;
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&] {
      ClientStats mine;
      httplib::Client cli(host, http_port);
      cli.set_connection_timeout(10s);
      cli.set_read_timeout(30s);
      cli.set_keep_alive(false);
      while (Clock::now() < until) {
        const auto t0 = Clock::now();
        auto res = cli.Get(path);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (res) {
          ++mine.status[res->status];
          mine.bytes += res->body.size();
          mine.ms.push_back(ms);
        } else {
          ++mine.status[-1];
          std::this_thread::sleep_for(10ms);
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      all.ms.insert(all.ms.end(), mine.ms.begin(), mine.ms.end());
      for (auto [s, n] : mine.status) all.status[s] += n;
      all.bytes += mine.bytes;
    });
  }
  for (auto& t : threads) t.join();
  slow_http_thread.join();
  slow_ctl_thread.join();
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();

  uint64_t total = 0;
  for (auto [s, n] : all.status) total += n;
  std::printf("clients=%d seconds=%d wall_s=%.1f requests=%llu req_per_s=%.1f mib=%.1f\n", clients,
              seconds, wall, static_cast<unsigned long long>(total), static_cast<double>(total) / wall,
              static_cast<double>(all.bytes) / (1 << 20));
  std::printf("latency_ms p50=%.1f p90=%.1f p99=%.1f max=%.1f\n", Percentile(all.ms, 0.50),
              Percentile(all.ms, 0.90), Percentile(all.ms, 0.99), Percentile(all.ms, 1.0));
  std::printf("status");
  for (auto [s, n] : all.status) std::printf(" %d=%llu", s, static_cast<unsigned long long>(n));
  std::printf("\n");
  std::printf("slow_http opened=%d closed_by_server=%d first_close_s=%.1f last_close_s=%.1f\n",
              slow_http_result.opened, slow_http_result.closed_by_server,
              slow_http_result.first_close_s, slow_http_result.last_close_s);
  std::printf("slow_ctl opened=%d closed_by_server=%d first_close_s=%.1f last_close_s=%.1f\n",
              slow_ctl_result.opened, slow_ctl_result.closed_by_server,
              slow_ctl_result.first_close_s, slow_ctl_result.last_close_s);
  return 0;
}
