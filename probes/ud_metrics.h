// ud_ping metric state, pure (no verbs, no clock): folds the pingers' PeerReports into
// per-(module, peer) counters and the RTT histogram, and builds the families of
// docs/metrics.md "ud_ping" (names agreed in the session 5 contract). With a module's
// aggregate_by the per-peer series are summed per value of that peer label.
#pragma once

#include <prometheus/metric_family.h>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "probes/results.h"
#include "probes/ud_pinger.h"

namespace rxe::probes {

struct UdPairInfo {
  std::string module;
  std::string peer;
  std::map<std::string, std::string> labels;  // the peer's labels
  std::string aggregate_by;                   // the module's; "" = per-peer series
};

class UdStats {
 public:
  /// The configured pairs (every ud_ping module's peers). Counters of pairs that stay are
  /// kept; removed pairs' series disappear. Modules with no peers still export their gauges.
  void SetPairs(const std::vector<UdPairInfo>& pairs, const std::vector<std::string>& modules);
  /// A pinger's cumulative report of one pair: the increase since the previous report of
  /// that pair is added (a report below the previous one = a new pinger: all of it is new).
  void Fold(const std::string& module, const std::string& peer, const ud::PeerReport& r);
  void CountFetch(const std::string& module, bool ok);
  /// One ping slot (interval) of a pair whose peer's UD address was never fetched: the peer
  /// cannot be pinged, and the loss rules count the slot as lost (a peer down since the
  /// daemon started would otherwise have no series that moves).
  void CountUnresolved(const std::string& module, const std::string& peer);
  /// A device's loop counters (cumulative since that device's pinger started; `base` is
  /// what earlier pingers of the device counted, kept across a pinger's re-creation).
  void SetDevice(const std::string& device, const ud::LoopCounters& c);
  /// The device's pinger is being replaced: what it counted moves into the base.
  void RebaseDevice(const std::string& device);

  std::vector<prometheus::MetricFamily> Families() const;

  struct Counts {
    uint64_t sent = 0, received = 0, lost = 0, late = 0, send_errors = 0, unresolved = 0;
    uint64_t samples = 0;  // valid samples (histogram count)
    std::array<uint64_t, kLatencyBuckets.size()> buckets{};  // non-cumulative
    double network_sum = 0, total_sum = 0, responder_sum = 0;
    void Add(const Counts& o);
  };
  /// For tests: the counts of one pair (nullptr if not configured).
  const Counts* PairCounts(const std::string& module, const std::string& peer) const;

 private:
  struct Pair {
    UdPairInfo info;
    Counts counts;
    ud::PeerReport last;  // the previous cumulative report (samples unused)
  };
  struct Device {
    ud::LoopCounters base;     // earlier pingers of this device
    ud::LoopCounters current;  // the running pinger's
  };
  std::map<std::pair<std::string, std::string>, Pair> pairs_;
  std::vector<std::string> modules_;
  std::map<std::string, std::pair<uint64_t, uint64_t>> fetches_;  // module -> (ok, error)
  std::map<std::string, Device> devices_;
};

/// Appends `extra` to `into`, merging families of the same name (one HELP/TYPE per name).
void MergeFamilies(std::vector<prometheus::MetricFamily>* into,
                   std::vector<prometheus::MetricFamily> extra);

}  // namespace rxe::probes
