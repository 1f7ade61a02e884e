#include "probes/ud_pinger.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "probes/ud_wire.h"

namespace rxe::probes::ud {
namespace {

uint64_t Nanos(Clock::time_point t) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count());
}

}  // namespace

Pinger::Pinger(std::unique_ptr<Endpoint> endpoint, PingerOptions opts)
    : ep_(std::move(endpoint)),
      opts_(opts),
      address_(ep_->Address()),
      device_(ep_->device()),
      next_opts_(opts),
      tracker_(opts.timeout) {}

Pinger::~Pinger() {
  Stop();
  if (wake_fd_ >= 0) close(wake_fd_);
}

bool Pinger::Start() {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    log::Error("ud_ping: eventfd failed", {{"error", std::strerror(errno)}});
    return false;
  }
  thread_ = std::thread([this] { Run(); });
  return true;
}

void Pinger::Stop() {
  stop_ = true;
  Wake();
  if (thread_.joinable()) thread_.join();
}

void Pinger::Wake() {
  if (wake_fd_ < 0) return;
  const uint64_t one = 1;
  [[maybe_unused]] auto n = write(wake_fd_, &one, sizeof one);
}

void Pinger::SetPeers(std::vector<PeerTarget> peers) {
  {
    std::lock_guard lock(mu_);
    next_peers_ = std::move(peers);
    peers_changed_ = true;
  }
  Wake();
}

void Pinger::SetTiming(PingerOptions opts) {
  {
    std::lock_guard lock(mu_);
    next_opts_ = opts;
    peers_changed_ = true;  // ApplyPeers rebuilds the schedule and the tracker
  }
  Wake();
}

std::vector<PeerReport> Pinger::TakeReport() {
  std::lock_guard lock(mu_);
  std::vector<PeerReport> out;
  out.reserve(reports_.size());
  for (auto& [name, r] : reports_) {
    out.push_back(r);
    r.samples.clear();
  }
  return out;
}

LoopCounters Pinger::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

void Pinger::SetSourceFilter(std::shared_ptr<const SourceAcl> acl) {
  std::lock_guard lock(mu_);
  acl_ = std::move(acl);
}

void Pinger::ApplyPeers(Clock::time_point now) {
  std::lock_guard lock(mu_);
  if (!peers_changed_) return;
  peers_changed_ = false;
  peers_ = next_peers_;
  if (next_opts_.interval != opts_.interval || next_opts_.timeout != opts_.timeout) {
    opts_ = next_opts_;
    tracker_ = PingTracker(opts_.timeout);
  }
  tracker_.Clear();
  std::map<std::string, PeerReport> kept;
  for (const auto& p : peers_) {
    auto it = reports_.find(p.name);
    PeerReport r = it != reports_.end() ? std::move(it->second) : PeerReport{};
    r.name = p.name;
    kept[p.name] = std::move(r);
  }
  reports_ = std::move(kept);
  schedule_ = std::make_unique<PingSchedule>(peers_.size(), opts_.interval, now);
}

void Pinger::SendPing(size_t peer, Clock::time_point now) {
  const auto slot = ep_->AcquireSendSlot();
  if (!slot) {
    std::lock_guard lock(mu_);
    ++counters_.no_send_slot;
    ++reports_[peers_[peer].name].send_errors;
    return;
  }
  const uint64_t seq = tracker_.OnPosted(peer, now);
  Packet p;
  p.kind = Kind::kPing;
  p.seq = seq;
  p.sender_gid = address_.gid;
  p.sender_qpn = address_.qpn;
  p.sender_qkey = address_.qkey;
  p.ping_send_ns = Nanos(now);
  Encode(p, ep_->SendPayload(*slot));
  auto failure = ep_->PostSend(*slot, peers_[peer].address, seq);
  std::lock_guard lock(mu_);
  PeerReport& r = reports_[peers_[peer].name];
  if (failure) {
    tracker_.OnSendFailed(seq);
    ++r.send_errors;
    log::Debug("ud_ping: post failed", {{"peer", peers_[peer].name}, {"error", failure->detail}});
    return;
  }
  ++r.sent;
}

void Pinger::HandleReceive(const Completion& c, Clock::time_point now) {
  std::string why;
  const auto pkt = Decode(ep_->RecvPayload(c.slot, c.byte_len), &why);
  if (!pkt) {
    std::lock_guard lock(mu_);
    ++counters_.malformed;
    return;
  }
  if (!c.src_gid) {  // no GRH we can read: we would not know where to answer
    std::lock_guard lock(mu_);
    ++counters_.malformed;
    return;
  }
  if (pkt->kind == Kind::kPing) {
    {
      std::lock_guard lock(mu_);
      if (!acl_ || !acl_->Allows(GidToSockaddr(*c.src_gid))) {
        ++counters_.not_allowed;
        return;
      }
    }
    const auto slot = ep_->AcquireSendSlot();
    if (!slot) {
      std::lock_guard lock(mu_);
      ++counters_.no_send_slot;
      return;
    }
    Packet pong = *pkt;
    pong.kind = Kind::kPong;
    pong.sender_gid = address_.gid;
    pong.sender_qpn = address_.qpn;
    pong.sender_qkey = address_.qkey;
    pong.resp_recv_ns = Nanos(now);
    pong.resp_send_ns = Nanos(Clock::now());
    Encode(pong, ep_->SendPayload(*slot));
    // The packet's real source, never the address the payload claims (a forged ping must
    // not turn this host into a reflector towards a third party). Same size as the ping.
    const EndpointAddress to{*c.src_gid, c.src_qp, address_.qkey};
    const auto len = static_cast<uint32_t>(std::max<size_t>(
        kHeaderBytes, ep_->RecvPayload(c.slot, c.byte_len).size()));
    auto failure = ep_->PostSend(*slot, to, 0, len);
    std::lock_guard lock(mu_);
    counters_.ah_evictions = ep_->address_handle_evictions();
    if (failure) {
      ++counters_.wc_errors;
      log::Debug("ud_ping: pong post failed", {{"error", failure->detail}});
    } else {
      ++counters_.pongs_sent;
    }
    return;
  }
  if (auto peer = tracker_.PeerOf(pkt->seq);
      peer && *peer < peers_.size() &&
      (peers_[*peer].address.gid != *c.src_gid || peers_[*peer].address.qpn != c.src_qp)) {
    std::lock_guard lock(mu_);
    ++counters_.foreign_pongs;  // someone else answering for the peer: the ping stays pending
    return;
  }
  const auto sample = tracker_.OnPong(pkt->seq, now, pkt->resp_recv_ns, pkt->resp_send_ns);
  std::lock_guard lock(mu_);
  if (!sample) {
    if (auto late = tracker_.TakeLate(pkt->seq); late && *late < peers_.size() &&
        peers_[*late].address.gid == *c.src_gid && peers_[*late].address.qpn == c.src_qp) {
      ++reports_[peers_[*late].name].late;  // counted lost at its timeout; answered since
      return;
    }
    ++counters_.unmatched_pongs;  // duplicate, forged, or from before a peer list change
    return;
  }
  PeerReport& r = reports_[peers_[sample->peer].name];
  ++r.received;
  r.loss_streak = 0;
  r.last_pong_at = now;
  r.last_answer_posted =
      now - std::chrono::duration_cast<Clock::duration>(
                std::chrono::duration<double>(sample->total_seconds));
  r.samples.push_back(*sample);
}

void Pinger::HandleCompletions() {
  for (;;) {
    const auto batch = ep_->Poll();
    if (batch.empty()) return;
    const Clock::time_point now = Clock::now();
    for (const Completion& c : batch) {
      if (!c.ok) {
        std::lock_guard lock(mu_);
        ++counters_.wc_errors;
        log::Debug("ud_ping: completion error", {{"status", c.status}});
        if (!broken_ && ep_->QpInError()) {
          // Every outstanding receive is flushed now; reposting would spin on flush errors.
          broken_ = true;
          log::Error("ud_ping: the UD QP went to the error state; the device's endpoint is "
                     "rebuilt", {{"device", device_}, {"status", c.status}});
        }
        if (c.is_send && c.send_tag != 0) {
          if (auto peer = tracker_.OnSendFailed(c.send_tag); peer && *peer < peers_.size()) {
            ++reports_[peers_[*peer].name].send_errors;
          }
        }
      } else if (!c.is_send) {
        HandleReceive(c, now);
      }
      if (!c.is_send && !broken_) {
        if (auto f = ep_->RepostRecv(c.slot)) {
          log::Warn("ud_ping: receive repost failed", {{"error", f->detail}});
        }
      }
    }
  }
}

void Pinger::Run() {
  pollfd fds[2] = {{ep_->event_fd(), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  while (!stop_) {
    Clock::time_point now = Clock::now();
    ApplyPeers(now);
    // Send every ping that is due (not on a QP in the error state).
    while (schedule_ && !broken_) {
      const auto next = schedule_->Next();
      if (!next || next->first > now) break;
      SendPing(next->second, now);
      schedule_->Advance(now);
    }
    for (size_t peer : tracker_.Expire(now)) {
      std::lock_guard lock(mu_);
      if (peer >= peers_.size()) continue;
      PeerReport& r = reports_[peers_[peer].name];
      ++r.lost;
      if (r.loss_streak++ == 0) r.streak_started_at = now;
    }
    if (schedule_) {
      std::lock_guard lock(mu_);
      counters_.skipped_rounds = schedule_->skipped_rounds();
    }
    // Sleep until the next ping, the next timeout or a completion / wake-up.
    Clock::time_point wake = now + std::chrono::seconds(1);
    if (schedule_) {
      if (auto next = schedule_->Next()) wake = std::min(wake, next->first);
    }
    if (auto d = tracker_.NextDeadline()) wake = std::min(wake, *d);
    const auto wait = std::max(Clock::duration::zero(), wake - Clock::now());
    timespec ts{};
    ts.tv_sec = std::chrono::duration_cast<std::chrono::seconds>(wait).count();
    ts.tv_nsec = (std::chrono::duration_cast<std::chrono::nanoseconds>(wait) %
                  std::chrono::seconds(1)).count();
    const int n = ppoll(fds, 2, &ts, nullptr);
    if (n < 0 && errno != EINTR) {
      log::Error("ud_ping: ppoll failed", {{"error", std::strerror(errno)}});
      return;
    }
    if (fds[1].revents & POLLIN) {
      uint64_t v = 0;
      [[maybe_unused]] auto r = read(wake_fd_, &v, sizeof v);
    }
    if (fds[0].revents & POLLIN) {
      if (auto f = ep_->AckEventAndRearm()) {
        log::Error("ud_ping: completion channel failed", {{"error", f->detail}});
        return;
      }
    }
    // Drain after re-arming: a completion between the last poll and the re-arm is not lost.
    HandleCompletions();
  }
}

}  // namespace rxe::probes::ud
