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

// Pings due within this much of a wake-up are sent at that wake-up (at 1,000 peers and a
// 10 s interval: 5 pings per wake-up instead of 1); at most 1/20 of the interval, so short
// intervals stay spread out.
constexpr auto kMaxPingBatch = std::chrono::milliseconds(50);

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
  return reports_.TakeChanged([](PeerReport& r) { r.samples.clear(); });
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
  std::vector<std::string> names;
  names.reserve(peers_.size());
  for (const auto& p : peers_) names.push_back(p.name);
  reports_.Retain(names);
  for (const auto& p : peers_) reports_[p.name].name = p.name;  // every peer reported once now
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

size_t Pinger::HandleCompletions() {
  std::vector<Completion> batch;
  size_t polled = 0;
  for (;;) {
    const size_t n = ep_->Poll(batch);
    if (n == 0) return polled;
    polled += n;
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
  // Every completion event costs a wake-up and two syscalls (read it, re-arm), so the CQ is
  // re-armed only before sleeping and only when its last arm may have been used: an arm fires
  // one event, on the first completion added after it (Endpoint::Create armed it).
  bool rearm = false;       // completions were polled or an event was read since the last arm
  bool event_read = false;  // the last arm's event was read already
  const auto channel_failed = [](const ProbeFailure& f) {
    log::Error("ud_ping: completion channel failed", {{"error", f.detail}});
  };
  while (!stop_) {
    Clock::time_point now = Clock::now();
    ApplyPeers(now);
    const auto ping_batch = std::min<Clock::duration>(kMaxPingBatch, opts_.interval / 20);
    // Send every ping that is due now or within `ping_batch` (a few pings per wake-up, each
    // peer still pinged once per interval), not on a QP in the error state. Each ping is
    // timestamped just before its post, and the CQ is drained after each one, so a pong that
    // arrives meanwhile waits for no other ping's post.
    while (schedule_ && !broken_) {
      const auto next = schedule_->Next();
      if (!next || next->first > now + ping_batch) break;
      SendPing(next->second, Clock::now());
      schedule_->Advance(now);
      if (HandleCompletions() > 0) rearm = true;
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
    if (HandleCompletions() > 0) rearm = true;
    if (rearm) {
      // Take the used arm's event now if it is there (else it wakes the next ppoll for
      // nothing), arm again, then poll once more: a completion added between the last poll
      // and the arm fired no event.
      if (!event_read) {
        if (auto got = ep_->TakeEvent(); auto* f = std::get_if<ProbeFailure>(&got)) {
          return channel_failed(*f);
        }
      }
      if (auto f = ep_->Arm()) return channel_failed(*f);
      rearm = event_read = false;
      if (HandleCompletions() > 0) {
        rearm = true;
        continue;
      }
    }
    // Sleep until the next ping, the next timeout or a completion / wake-up.
    Clock::time_point wake = now + std::chrono::seconds(1);
    if (schedule_ && !broken_) {  // a broken QP sends nothing: its overdue ping must not spin
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
      auto got = ep_->TakeEvent();
      if (auto* f = std::get_if<ProbeFailure>(&got)) return channel_failed(*f);
      if (std::get<bool>(got)) rearm = event_read = true;
    }
  }
}

}  // namespace rxe::probes::ud
