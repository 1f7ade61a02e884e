// GET /metrics latency on loopback with 8 RDMA devices in a fake sysfs:
// tests/fixtures/sys/.../rxe0 copied as rxe0..rxe7. Prints numbers; no
// pass/fail. Usage: metrics_bench [requests=1000]
#include <httplib.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/log.h"
#include "exporter/app.h"
#include "exporter/cli.h"

namespace fs = std::filesystem;
using rxe::exporter::App;

namespace {

void Write(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << s << "\n";
}

/// A minimal rxe-like device, used when the fixture is not there.
void GenerateRxe(const fs::path& dev) {
  Write(dev / "node_guid", "5054:00ff:fe12:3456");
  Write(dev / "sys_image_guid", "5054:00ff:fe12:3456");
  Write(dev / "node_type", "1: CA");
  Write(dev / "fw_ver", "0.0.0");
  Write(dev / "parent", "eth0");
  const fs::path port = dev / "ports/1";
  Write(port / "state", "4: ACTIVE");
  Write(port / "phys_state", "5: LinkUp");
  Write(port / "rate", "10 Gb/sec (4X QDR)");
  Write(port / "link_layer", "Ethernet");
  for (const char* c : {"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request",
                        "rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "ack_deferred",
                        "retry_exceeded_err", "retry_rnr_exceeded_err", "completer_retry_err",
                        "send_err", "link_downed", "rdma_sends", "rdma_recvs"}) {
    Write(port / "hw_counters" / c, "12345");
  }
  Write(port / "hw_counters/lifespan", "10");
}

fs::path BuildSysfs(const fs::path& root, int devices) {
  const fs::path fixture = fs::path(RXE_FIXTURES_DIR) / "sys/class/infiniband/rxe0";
  const bool have_fixture = fs::exists(fixture);
  for (int i = 0; i < devices; ++i) {
    const std::string name = "rxe" + std::to_string(i);
    const fs::path dev = root / "devices/virtual/infiniband" / name;
    if (have_fixture) {
      fs::create_directories(dev);
      fs::copy(fs::canonical(fixture), dev,
               fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    } else {
      GenerateRxe(dev);
    }
    fs::create_directories(root / "class/infiniband");
    fs::create_symlink("../../devices/virtual/infiniband/" + name,
                       root / "class/infiniband" / name);
  }
  std::printf("sysfs: %d devices from %s\n", devices,
              have_fixture ? fixture.c_str() : "a generated rxe-like tree");
  return root;
}

/// User + system CPU time of this process (client and server threads).
double CpuMs() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

double Percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  const int requests = argc > 1 ? std::atoi(argv[1]) : 1000;
  char tmpl[] = "/tmp/rxe_metrics_bench.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const fs::path dir(tmpl);
  BuildSysfs(dir / "sys", 8);
  Write(dir / "config.yml",
        "collectors: {rdma_netlink: false, rtnetlink: false, hw_counter_source: sysfs}\n"
        "responder: {enabled: false}");

  rxe::log::Init(rxe::log::Level::kError, rxe::log::Format::kLogfmt);
  auto cl = rxe::exporter::ParseCommandLine({"--config.file", (dir / "config.yml").string(),
                                             "--path.sysfs", (dir / "sys").string(),
                                             "--web.listen-address=127.0.0.1:0"});
  App app(cl.flags);
  if (auto st = app.Start(); !st.ok()) {
    std::fprintf(stderr, "start failed: %s\n", st.error().message.c_str());
    return 1;
  }
  httplib::Client cli("127.0.0.1", app.BoundPorts()[0]);
  cli.set_keep_alive(true);
  size_t bytes = 0, series = 0;
  for (int i = 0; i < 20; ++i) {  // warm-up (page cache, connection)
    auto res = cli.Get("/metrics");
    if (!res || res->status != 200) return 1;
    bytes = res->body.size();
    series = static_cast<size_t>(std::count(res->body.begin(), res->body.end(), '\n'));
  }
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(requests));
  const auto start = std::chrono::steady_clock::now();
  const double cpu0 = CpuMs();
  for (int i = 0; i < requests; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto res = cli.Get("/metrics");
    const auto t1 = std::chrono::steady_clock::now();
    if (!res || res->status != 200) {
      std::fprintf(stderr, "request %d failed\n", i);
      return 1;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  const double cpu_http = (CpuMs() - cpu0) / requests;
  const double total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("requests: %d sequential GET /metrics (keep-alive, loopback)\n", requests);
  std::printf("response: %zu bytes, %zu lines\n", bytes, series);
  std::printf("latency ms: p50 %.3f  p90 %.3f  p99 %.3f  max %.3f\n", Percentile(ms, 0.5),
              Percentile(ms, 0.9), Percentile(ms, 0.99), *std::max_element(ms.begin(), ms.end()));
  std::printf("throughput: %.0f requests/s; CPU (client+server) %.3f ms/request\n",
              requests / total_s, cpu_http);

  // The same scrape without HTTP: collectors + serialization only.
  std::vector<double> direct;
  const double cpu1 = CpuMs();
  for (int i = 0; i < requests; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string body = app.RenderMetrics();
    direct.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (body.empty()) return 1;
  }
  const double cpu_direct = (CpuMs() - cpu1) / requests;
  std::printf("in-process RenderMetrics ms: p50 %.3f  p90 %.3f  p99 %.3f  max %.3f; CPU %.3f ms\n",
              Percentile(direct, 0.5), Percentile(direct, 0.9), Percentile(direct, 0.99),
              *std::max_element(direct.begin(), direct.end()), cpu_direct);
  app.Stop(std::chrono::steady_clock::now() + std::chrono::seconds(2));
  fs::remove_all(dir);
  return 0;
}
