// The daemon side of ud_ping (issue 15): one long-lived UD endpoint + Pinger per local
// device used by ud_ping modules (created on first use, kept across reloads), the peers'
// UD addresses fetched over the authenticated control protocol by a small worker pool
// (cached; fetched again after kRefetchAfterLosses lost pings in a row, at most once per
// max(interval, 5 s), so a restarted peer's new QPN is picked up), the responder's source
// of our own address, and the metric state (probes/ud_metrics.h). Loss is per pair.
#pragma once

#include <netinet/in.h>
#include <prometheus/metric_family.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "config/model.h"
#include "probes/control_protocol.h"
#include "probes/prober.h"
#include "probes/responder_acl.h"
#include "probes/ud_debug.h"
#include "probes/ud_metrics.h"
#include "probes/ud_pinger.h"

namespace rxe::probes {

/// Fetches one peer's UD address (production: RunProbe with a ud_ping module).
using UdAddressFetcher = std::function<ProbeOutcome(const config::Module&, const config::Peer&,
                                                    const std::atomic<bool>& cancel)>;

class UdMesh {
 public:
  static constexpr uint32_t kFetchWorkers = 8;       // concurrent address fetches
  static constexpr uint64_t kRefetchAfterLosses = 3;  // lost pings in a row
  static constexpr std::chrono::seconds kMinRefetchGap{5};
  static constexpr std::chrono::seconds kFetchTimeout{5};
  static constexpr std::chrono::seconds kEndpointRetry{30};  // after a failed endpoint creation

  explicit UdMesh(UdAddressFetcher fetch);
  ~UdMesh();  // Stop()
  UdMesh(const UdMesh&) = delete;
  UdMesh& operator=(const UdMesh&) = delete;

  /// Applies the ud_ping modules of `cfg` (starts the worker threads on first use).
  /// `acl`: sources whose pings are answered (the responder's); nullopt = answer none.
  void Apply(const config::Config& cfg, std::optional<SourceAcl> acl);
  /// Stops the pingers and workers (endpoints are destroyed). Apply() starts again.
  void Stop();

  /// For Responder::SetUdAddressSource: the endpoint of the device holding `local_ip`
  /// (created on first use, so a host without ud_ping modules answers pings too).
  std::optional<control::UdAddress> AddressFor(in_addr local_ip);

  std::vector<prometheus::MetricFamily> Collect();
  /// /debug/ud_mesh: every pair's fetch state, address, counters, loss streak, newest pong
  /// and recent RTT medians, and the devices' endpoints (probes/ud_debug.h).
  std::string DebugJson();
  /// Threads running: the ticker, plus the fetch workers once a ud_ping module has peers.
  size_t threads() {
    std::lock_guard lock(mu_);
    return threads_.size();
  }
  /// Endpoint creations that failed (for tests and logs).
  uint64_t endpoint_failures() {
    std::lock_guard lock(mu_);
    return endpoint_failures_;
  }

 private:
  struct Device;
  struct PeerState;
  struct Target {
    std::string module;
    config::Peer peer;
    std::string device_hint;  // module.device
  };
  void Worker();
  void Ticker();
  void Drain();  // mu_ held: reports -> stats, loss streaks -> refetches
  void Enqueue(const std::string& peer);  // mu_ held
  Device* DeviceFor(in_addr local_ip, const std::string& hint);  // mu_ held
  void PushPeers();  // mu_ held: SetPeers on every device whose target list changed
  void CountUnresolved(Clock::time_point now);  // mu_ held: slots of never-fetched peers
  ud::PingerOptions Timing() const;

  UdAddressFetcher fetch_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::atomic<bool> cancel_{false};
  std::vector<std::thread> threads_;

  config::Module timing_;  // interval, timeout, size of the ud_ping modules
  std::vector<Target> targets_;
  std::map<std::string, config::Module> modules_;
  std::map<std::string, std::unique_ptr<PeerState>> peers_;  // by peer name
  std::deque<std::string> queue_;
  std::map<std::string, std::unique_ptr<Device>> devices_;          // by device name
  std::map<std::pair<uint32_t, std::string>, std::string> device_of_;  // (ip, hint) -> device
  std::map<std::pair<uint32_t, std::string>, Clock::time_point> failed_until_;
  uint64_t endpoint_failures_ = 0;
  std::shared_ptr<const SourceAcl> acl_;
  UdStats stats_;
  struct PairDebugState {
    std::string device;
    ud::PeerReport last;  // the newest cumulative report (samples moved out)
    RecentRtt rtt;
  };
  std::map<std::pair<std::string, std::string>, PairDebugState> debug_;  // (module, peer)
};

}  // namespace rxe::probes
