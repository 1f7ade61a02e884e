// ud_ping bookkeeping, pure (no verbs, no clock reads): the schedule that spreads
// the pings to N peers over one interval, and the tracker of outstanding pings
// (sequence -> peer, timestamps) that turns pongs into samples and timeouts into loss.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace rxe::probes::ud {

using Clock = std::chrono::steady_clock;

/// Peer i's k-th ping is due at start + k*interval + i*interval/N: one ping per peer
/// per interval, evenly spaced (no burst). A loop that falls more than one interval
/// behind skips the missed rounds instead of bursting to catch up.
class PingSchedule {
 public:
  PingSchedule(size_t peers, Clock::duration interval, Clock::time_point start);
  /// When the next ping is due and to which peer; nullopt with no peers.
  std::optional<std::pair<Clock::time_point, size_t>> Next() const;
  /// Marks the current ping as sent at `now` and moves to the next slot.
  void Advance(Clock::time_point now);
  uint64_t skipped_rounds() const { return skipped_rounds_; }

 private:
  Clock::time_point Due(uint64_t round, size_t peer) const;
  size_t peers_;
  Clock::duration interval_;
  Clock::time_point start_;
  uint64_t round_ = 0;
  size_t peer_ = 0;
  uint64_t skipped_rounds_ = 0;
};

/// One answered ping. total = pong polled - ping posted (the clock read just before
/// ibv_post_send; rxe transmits a UD send inside that call, a NIC right after it). Neither
/// the send completion's poll time nor the time the post returned is used: the loop's thread
/// can be preempted before reading them (lab, loaded TCG host: 40 ms netem pairs showed
/// 0.5 ms "RTTs"), while the post time can only make the RTT longer, never impossible.
/// responder = its receive-to-reply time; network = total - responder.
struct Sample {
  size_t peer = 0;
  double total_seconds = 0;
  double responder_seconds = 0;
  double network_seconds = 0;
  /// false when total < responder delay: impossible in real time, so one side's software
  /// timestamp was taken late (thread preempted). R-Pingmesh flags these invalid too; the
  /// sample's network time is then 0 and it must not feed RTT statistics.
  bool valid = true;
};

class PingTracker {
 public:
  explicit PingTracker(Clock::duration timeout) : timeout_(timeout) {}
  /// A ping to `peer` was posted at `t1`; returns its sequence number.
  uint64_t OnPosted(size_t peer, Clock::time_point t1);
  /// The post or the send completion failed: forget it (the caller counts the error).
  std::optional<size_t> OnSendFailed(uint64_t seq);
  /// A pong for `seq` arrived at `t5` with the responder's receive/send clock readings.
  /// nullopt for an unknown sequence (late after its timeout, duplicate, or forged).
  std::optional<Sample> OnPong(uint64_t seq, Clock::time_point t5, uint64_t resp_recv_ns,
                               uint64_t resp_send_ns);
  /// The peer an outstanding ping went to (to check a pong's source before OnPong).
  std::optional<size_t> PeerOf(uint64_t seq) const {
    auto it = pending_.find(seq);
    if (it == pending_.end()) return std::nullopt;
    return it->second.peer;
  }
  /// Removes the pings older than the timeout at `now`; returns their peers (one entry per lost ping).
  std::vector<size_t> Expire(Clock::time_point now);
  /// When the oldest outstanding ping times out.
  std::optional<Clock::time_point> NextDeadline() const;
  size_t outstanding() const { return pending_.size(); }
  /// Forget every outstanding ping (the peer list changed): returns nothing, counts nothing.
  void Clear() { pending_.clear(); }

 private:
  struct Pending {
    size_t peer = 0;
    Clock::time_point posted;
  };
  Clock::duration timeout_;
  uint64_t next_seq_ = 1;
  std::map<uint64_t, Pending> pending_;  // sequence order = post order, so begin() expires first
};

}  // namespace rxe::probes::ud
