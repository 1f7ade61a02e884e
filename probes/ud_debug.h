// /debug/ud_mesh, pure (no verbs, no clock reads): the per-pair state an operator (and the
// lab) reads to see since when a peer stops answering and what its RTT is now — the loss
// streak and when it began, the newest pong, medians of the recent RTT samples and the
// peer's UD address — next to the devices' own endpoints.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "probes/ud_endpoint.h"
#include "probes/ud_pinger.h"

namespace rxe::probes {

/// The last kCapacity valid samples of a pair (oldest overwritten) and their medians.
class RecentRtt {
 public:
  static constexpr size_t kCapacity = 64;
  void Add(const ud::Sample& s);  // invalid samples (one side's clock read late) are skipped
  size_t size() const { return count_; }
  struct Medians {
    double network = 0, responder = 0, total = 0;
  };
  std::optional<Medians> Median() const;  // nullopt without samples

 private:
  std::array<float, kCapacity> network_{}, responder_{}, total_{};
  size_t next_ = 0, count_ = 0;
};

struct UdPairDebug {
  std::string module, peer, device;
  std::string fetch;  // "ok", "pending" (not fetched yet) or "failed" (the last fetch failed)
  std::optional<ud::EndpointAddress> address;
  ud::PeerReport report;  // cumulative counters and timestamps (samples unused)
  std::optional<RecentRtt::Medians> rtt;
  size_t rtt_samples = 0;
};

struct UdDeviceDebug {
  std::string device;
  ud::EndpointAddress address;
  size_t peers = 0;  // targets pinged from it
};

struct UdDebugSnapshot {
  double interval_seconds = 0, timeout_seconds = 0;
  std::vector<UdDeviceDebug> devices;
  std::vector<UdPairDebug> pairs;
  /// One reading of both clocks: steady timestamps are shown as Unix times.
  ud::Clock::time_point steady_now{};
  std::chrono::system_clock::time_point wall_now{};
};

std::string UdDebugJson(const UdDebugSnapshot& s);

}  // namespace rxe::probes
