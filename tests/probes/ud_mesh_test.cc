// UdMesh without RDMA (this machine has none; the lab runs it on rdma_rxe): the address
// fetches of 1,000 peers use the bounded worker pool (never one thread per peer), every peer
// is fetched once, counted per module, and a device that cannot be opened is not retried
// for every peer. The fetcher is a fake; nothing here is timed.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "config/loader.h"
#include "probes/ud_mesh.h"

namespace rxe::probes {
namespace {

double Counter(const std::vector<prometheus::MetricFamily>& fs, const std::string& name,
               const std::string& module, const std::string& result) {
  for (const auto& f : fs) {
    if (f.name != name) continue;
    for (const auto& m : f.metric) {
      bool mod = false, res = result.empty();
      for (const auto& l : m.label) {
        mod = mod || (l.name == "module" && l.value == module);
        res = res || (l.name == "result" && l.value == result);
      }
      if (mod && res) return f.type == prometheus::MetricType::Gauge ? m.gauge.value : m.counter.value;
    }
  }
  return -1;
}

TEST(UdMesh, ThousandPeersAreFetchedByTheBoundedPool) {
  std::string yaml = "prober: {max_pairs: 2000}\npeers:\n";
  for (int i = 0; i < 1000; ++i) {
    yaml += "  - {name: p" + std::to_string(i) + ", address: 10.1." + std::to_string(i / 250) +
            "." + std::to_string(i % 250 + 1) + "}\n";
  }
  yaml += "modules:\n  mesh: {type: ud_ping}\n";
  auto cfg = config::LoadString(yaml, "t.yml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;

  std::atomic<int> running{0}, max_running{0}, calls{0};
  UdMesh mesh([&](const config::Module& m, const config::Peer& p, const std::atomic<bool>&) {
    EXPECT_EQ(m.type, config::ProbeType::kUdPing);
    const int now = ++running;
    int seen = max_running.load();
    while (now > seen && !max_running.compare_exchange_weak(seen, now)) {
    }
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ProbeOutcome out;
    out.peer = p.name;
    out.success = true;
    out.ud_address = control::UdAddress{{}, 100, 0x11111111};
    out.local_ip = in_addr{htonl(0x0a000001)};
    --running;
    return out;
  });
  mesh.Apply(*cfg, std::nullopt);
  // Generous deadline (a loaded 2-core machine); the condition is what is checked.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  double ok = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    ok = Counter(mesh.Collect(), "rxe_ud_ping_address_fetches_total", "mesh", "ok");
    if (ok >= 1000) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(ok, 1000);
  EXPECT_EQ(calls.load(), 1000) << "each peer fetched once (cached)";
  EXPECT_LE(max_running.load(), static_cast<int>(UdMesh::kFetchWorkers));
  EXPECT_GE(max_running.load(), 2) << "fetches overlap";
  const auto fs = mesh.Collect();
  EXPECT_EQ(Counter(fs, "rxe_ud_ping_peers", "mesh", ""), 1000);
  EXPECT_EQ(Counter(fs, "rxe_ud_ping_address_fetches_total", "mesh", "error"), 0);
  // No RDMA device here: the endpoint for 10.0.0.1 failed once and was not retried per peer.
  EXPECT_EQ(mesh.endpoint_failures(), 1u);
  EXPECT_EQ(mesh.AddressFor(in_addr{htonl(0x0a000001)}), std::nullopt);
  mesh.Stop();
}

TEST(UdMesh, FailedFetchesAreCountedAndRetriedLater) {
  auto cfg = config::LoadString(
      "peers: [{name: b, address: 10.0.0.2}]\nmodules:\n  m1: {type: ud_ping}\n"
      "  m2: {type: ud_ping, peers: [b]}\n  lat: {type: send_lat}\n",
      "t.yml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  std::atomic<int> calls{0};
  UdMesh mesh([&](const config::Module&, const config::Peer&, const std::atomic<bool>&) {
    ++calls;
    ProbeOutcome out;
    out.failure = ProbeFailure{FailureReason::kConnectRefused, "refused", ""};
    return out;
  });
  mesh.Apply(*cfg, std::nullopt);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Counter(mesh.Collect(), "rxe_ud_ping_address_fetches_total", "m1", "error") < 1 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  mesh.Stop();
  const auto fs = mesh.Collect();
  EXPECT_EQ(calls.load(), 1) << "one fetch per peer, shared by both modules; retried only "
                                "after max(interval, 5 s)";
  EXPECT_EQ(Counter(fs, "rxe_ud_ping_address_fetches_total", "m1", "error"), 1);
  EXPECT_EQ(Counter(fs, "rxe_ud_ping_address_fetches_total", "m2", "error"), 1);
  EXPECT_EQ(Counter(fs, "rxe_ud_ping_address_fetches_total", "lat", "error"), -1);
  EXPECT_EQ(Counter(fs, "rxe_ud_ping_sent_total", "m1", ""), 0) << "series exist from 0";
  const std::string json = mesh.DebugJson();
  EXPECT_NE(json.find(R"({"module":"m1","peer":"b","device":"","fetch":"failed","address":null,)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"({"module":"m2","peer":"b",)"), std::string::npos) << json;
  EXPECT_EQ(json.find(R"("module":"lat")"), std::string::npos) << "only ud_ping pairs: " << json;
}

double PairCounter(const std::vector<prometheus::MetricFamily>& fs, const std::string& name,
                   const std::string& module, const std::string& peer) {
  for (const auto& f : fs) {
    if (f.name != name) continue;
    for (const auto& m : f.metric) {
      bool mod = false, pr = false;
      for (const auto& l : m.label) {
        mod = mod || (l.name == "module" && l.value == module);
        pr = pr || (l.name == "peer" && l.value == peer);
      }
      if (mod && pr) return m.counter.value;
    }
  }
  return -1;
}

// A peer whose address was never fetched cannot be pinged: without a count of its missed ping
// slots it would have no series that moves and no loss alert would ever see it.
TEST(UdMesh, NeverFetchedPeerCountsOneUnresolvedSlotPerInterval) {
  auto cfg = config::LoadString(
      "peers: [{name: down, address: 10.0.0.2}, {name: up, address: 10.0.0.3}]\nmodules:\n"
      "  m1: {type: ud_ping, interval: 1s, timeout: 500ms}\n"
      "  m2: {type: ud_ping, interval: 1s, timeout: 500ms, peers: [down]}\n",
      "t.yml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  UdMesh mesh([&](const config::Module&, const config::Peer& p, const std::atomic<bool>&) {
    ProbeOutcome out;
    if (p.name == "down") {
      out.failure = ProbeFailure{FailureReason::kConnectRefused, "refused", ""};
      return out;
    }
    out.success = true;  // fetched (no RDMA here, so never pinged): not unresolved
    out.ud_address = control::UdAddress{{}, 100, 0x11111111};
    out.local_ip = in_addr{htonl(0x0a000001)};
    return out;
  });
  const auto start = std::chrono::steady_clock::now();
  mesh.Apply(*cfg, std::nullopt);
  const auto deadline = start + std::chrono::seconds(60);
  while (PairCounter(mesh.Collect(), "rxe_ud_ping_unresolved_total", "m1", "down") < 3 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  mesh.Stop();
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto fs = mesh.Collect();
  const double m1 = PairCounter(fs, "rxe_ud_ping_unresolved_total", "m1", "down");
  EXPECT_GE(m1, 3);
  EXPECT_LE(m1, elapsed / 1.0 + 1) << "at most one slot per interval (no bursts), " << elapsed << " s";
  EXPECT_GE(PairCounter(fs, "rxe_ud_ping_unresolved_total", "m2", "down"), 2) << "per module";
  EXPECT_EQ(PairCounter(fs, "rxe_ud_ping_unresolved_total", "m1", "up"), 0)
      << "a fetched peer is not unresolved";
  EXPECT_EQ(PairCounter(fs, "rxe_ud_ping_sent_total", "m1", "down"), 0);
  EXPECT_EQ(PairCounter(fs, "rxe_ud_ping_lost_total", "m1", "down"), 0) << "loss is the rules' sum";
}

TEST(UdMesh, FetchWorkersStartOnlyWithUdPingTargets) {
  auto plain = config::LoadString("peers: [{name: b, address: 10.0.0.2}]\nmodules:\n"
                                  "  lat: {type: send_lat}\n", "t.yml");
  auto mesh_cfg = config::LoadString("peers: [{name: b, address: 10.0.0.2}]\nmodules:\n"
                                     "  m: {type: ud_ping}\n", "t.yml");
  ASSERT_TRUE(plain.ok() && mesh_cfg.ok());
  std::atomic<bool> release{false};
  UdMesh mesh([&](const config::Module&, const config::Peer&, const std::atomic<bool>&) {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return ProbeOutcome{};
  });
  EXPECT_EQ(mesh.threads(), 0u);
  mesh.Apply(*plain, std::nullopt);
  EXPECT_EQ(mesh.threads(), 1u) << "the ticker only: no fetch workers without ud_ping";
  mesh.Apply(*mesh_cfg, std::nullopt);
  EXPECT_EQ(mesh.threads(), 1 + UdMesh::kFetchWorkers);
  mesh.Apply(*mesh_cfg, std::nullopt);
  EXPECT_EQ(mesh.threads(), 1 + UdMesh::kFetchWorkers) << "started once";
  release = true;
  mesh.Stop();
  EXPECT_EQ(mesh.threads(), 0u);
}

}  // namespace
}  // namespace rxe::probes
