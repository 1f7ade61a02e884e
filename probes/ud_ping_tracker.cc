#include "probes/ud_ping_tracker.h"

namespace rxe::probes::ud {

PingSchedule::PingSchedule(size_t peers, Clock::duration interval, Clock::time_point start)
    : peers_(peers), interval_(interval), start_(start) {}

Clock::time_point PingSchedule::Due(uint64_t round, size_t peer) const {
  const auto offset = interval_ * static_cast<int64_t>(peer) / static_cast<int64_t>(peers_);
  return start_ + interval_ * static_cast<int64_t>(round) + offset;
}

std::optional<std::pair<Clock::time_point, size_t>> PingSchedule::Next() const {
  if (peers_ == 0) return std::nullopt;
  return std::make_pair(Due(round_, peer_), peer_);
}

void PingSchedule::Advance(Clock::time_point now) {
  if (peers_ == 0) return;
  if (++peer_ == peers_) {
    peer_ = 0;
    ++round_;
  }
  // More than one interval behind: jump to the first round whose slot for this peer is not
  // yet past, instead of sending the missed pings in a burst.
  while (Due(round_, peer_) + interval_ < now) {
    ++round_;
    ++skipped_rounds_;
  }
}

uint64_t PingTracker::OnPosted(size_t peer, Clock::time_point t1) {
  const uint64_t seq = next_seq_++;
  pending_.emplace(seq, Pending{peer, t1});
  return seq;
}

std::optional<size_t> PingTracker::OnSendFailed(uint64_t seq) {
  auto it = pending_.find(seq);
  if (it == pending_.end()) return std::nullopt;
  const size_t peer = it->second.peer;
  pending_.erase(it);
  return peer;
}

std::optional<Sample> PingTracker::OnPong(uint64_t seq, Clock::time_point t5,
                                          uint64_t resp_recv_ns, uint64_t resp_send_ns) {
  auto it = pending_.find(seq);
  if (it == pending_.end()) return std::nullopt;
  const Pending p = it->second;
  pending_.erase(it);
  Sample s;
  s.peer = p.peer;
  s.total_seconds = std::chrono::duration<double>(t5 - p.posted).count();
  // A responder whose clock readings go backwards sent garbage: count its delay as 0.
  s.responder_seconds =
      resp_send_ns >= resp_recv_ns ? static_cast<double>(resp_send_ns - resp_recv_ns) * 1e-9 : 0.0;
  s.network_seconds = s.total_seconds - s.responder_seconds;
  if (s.network_seconds < 0) {
    s.network_seconds = 0;
    s.valid = false;
  }
  return s;
}

std::vector<size_t> PingTracker::Expire(Clock::time_point now) {
  std::vector<size_t> lost;
  while (!pending_.empty() && pending_.begin()->second.posted + timeout_ <= now) {
    lost.push_back(pending_.begin()->second.peer);
    expired_[pending_.begin()->first] = pending_.begin()->second.peer;
    if (expired_.size() > kLateMemory) expired_.erase(expired_.begin());
    pending_.erase(pending_.begin());
  }
  return lost;
}

std::optional<size_t> PingTracker::TakeLate(uint64_t seq) {
  auto it = expired_.find(seq);
  if (it == expired_.end()) return std::nullopt;
  const size_t peer = it->second;
  expired_.erase(it);
  return peer;
}

std::optional<Clock::time_point> PingTracker::NextDeadline() const {
  if (pending_.empty()) return std::nullopt;
  return pending_.begin()->second.posted + timeout_;
}

}  // namespace rxe::probes::ud
