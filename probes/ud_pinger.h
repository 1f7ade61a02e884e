// The ud_ping event loop of one device: ONE thread owns the device's long-lived
// UD endpoint, sends the pings to all peers spread over the interval, answers
// the pings of other hosts (responder role, same QP) and turns pongs into RTT
// samples and timeouts into per-peer loss. Pings never create QPs or connections.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "probes/responder_acl.h"
#include "probes/ud_endpoint.h"
#include "probes/ud_ping_tracker.h"
#include "probes/ud_report_table.h"

namespace rxe::probes::ud {

struct PeerTarget {
  std::string name;  // the peer's key (its configured name/address)
  EndpointAddress address;
};

/// Per-peer results: counters are cumulative since the peer was first set,
/// samples are those since the previous TakeReport().
struct PeerReport {
  std::string name;
  uint64_t sent = 0;
  uint64_t received = 0;
  uint64_t lost = 0;         // no pong within the timeout
  uint64_t late = 0;         // of those, answered after the timeout (a slow host, not a drop)
  uint64_t send_errors = 0;  // post or send completion failed (not a network loss)
  /// Pings lost in a row since the last timely pong (a late pong does not end the streak).
  uint64_t loss_streak = 0;
  /// When the first loss of the current streak was counted (its timeout fired); valid
  /// while loss_streak > 0. A dead peer is detected at streak_started_at.
  Clock::time_point streak_started_at{};
  /// The newest timely pong: when it was polled, and when its ping was posted (the peer
  /// was alive after that instant). Epoch = never.
  Clock::time_point last_pong_at{};
  Clock::time_point last_answer_posted{};
  std::vector<Sample> samples;
};

struct LoopCounters {
  uint64_t pongs_sent = 0;       // pings of other hosts answered
  uint64_t malformed = 0;        // receives that were not ud_ping packets
  uint64_t unmatched_pongs = 0;  // pongs after their timeout (counted lost), duplicates, old peers
  uint64_t no_send_slot = 0;     // a ping or pong dropped because every send slot was busy
  uint64_t skipped_rounds = 0;   // the loop fell more than one interval behind
  uint64_t wc_errors = 0;        // failed completions (detail logged)
  uint64_t not_allowed = 0;      // pings from a source GID the filter refused (not answered)
  uint64_t ah_evictions = 0;     // address handles destroyed to keep the cache bounded
  uint64_t foreign_pongs = 0;    // pongs whose source is not the peer the ping went to (dropped)
};

struct PingerOptions {
  std::chrono::nanoseconds interval = std::chrono::seconds(10);
  std::chrono::nanoseconds timeout = std::chrono::seconds(1);
};

class Pinger {
 public:
  Pinger(std::unique_ptr<Endpoint> endpoint, PingerOptions opts);
  ~Pinger();  // stops and joins
  Pinger(const Pinger&) = delete;
  Pinger& operator=(const Pinger&) = delete;

  /// Starts the loop thread; false (+ log) if the wake-up eventfd cannot be made.
  bool Start();
  void Stop();
  /// Replaces the peer list (thread-safe; applied at the loop's next wake-up). Counters of
  /// peers that stay (same name) are kept; outstanding pings are forgotten, not counted lost.
  void SetPeers(std::vector<PeerTarget> peers);
  /// New interval/timeout (thread-safe; applied at the loop's next wake-up): the endpoint,
  /// its QPN and the counters stay; outstanding pings are forgotten, not counted lost.
  void SetTiming(PingerOptions opts);
  /// The reports that changed since the previous call (all of them after SetPeers).
  std::vector<PeerReport> TakeReport();
  /// Sources whose pings are answered (thread-safe): the responder's ACL; null = none.
  void SetSourceFilter(std::shared_ptr<const SourceAcl> acl);
  /// True once the QP went to the error state: the loop then stops reposting receives and
  /// pinging (the owner replaces the pinger: new endpoint, new QPN).
  bool broken() const { return broken_; }
  LoopCounters counters() const;
  EndpointAddress Address() const { return address_; }
  const std::string& device() const { return device_; }

 private:
  void Run();
  void ApplyPeers(Clock::time_point now);
  void SendPing(size_t peer, Clock::time_point now);
  size_t HandleCompletions();  // the number of completions polled
  void HandleReceive(const Completion& c, Clock::time_point now);
  void Wake();

  std::unique_ptr<Endpoint> ep_;
  PingerOptions opts_;
  EndpointAddress address_;
  std::string device_;
  int wake_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<bool> broken_{false};
  std::thread thread_;

  mutable std::mutex mu_;  // guards everything below
  std::vector<PeerTarget> next_peers_;
  bool peers_changed_ = false;
  PingerOptions next_opts_;
  ReportTable<PeerReport> reports_;
  LoopCounters counters_;
  std::shared_ptr<const SourceAcl> acl_;

  // Loop-thread state.
  std::vector<PeerTarget> peers_;
  PingTracker tracker_{std::chrono::seconds(1)};
  std::unique_ptr<PingSchedule> schedule_;
};

}  // namespace rxe::probes::ud
