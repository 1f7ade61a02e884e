#include "probes/ud_debug.h"

#include <algorithm>

#include "common/json_out.h"

namespace rxe::probes {
namespace {

double MedianOf(const std::array<float, RecentRtt::kCapacity>& v, size_t n) {
  std::array<float, RecentRtt::kCapacity> c = v;
  auto mid = c.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(c.begin(), mid, c.begin() + static_cast<std::ptrdiff_t>(n));
  if (n % 2 == 1) return *mid;
  const float lower = *std::max_element(c.begin(), mid);
  return (static_cast<double>(lower) + *mid) / 2;
}

// A steady-clock instant as Unix seconds (microseconds); null for "never" (the epoch).
void Instant(std::string& out, const UdDebugSnapshot& s, ud::Clock::time_point t) {
  if (t == ud::Clock::time_point{}) {
    out += "null";
    return;
  }
  const auto wall = s.wall_now - std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                     s.steady_now - t);
  JsonNumber(out, std::chrono::duration<double>(wall.time_since_epoch()).count(), "%.6f");
}

void Address(std::string& out, const ud::EndpointAddress& a) {
  out += "{\"gid\":";
  JsonString(out, GidToString(a.gid));
  out += ",\"qpn\":" + std::to_string(a.qpn) + "}";
}

void Pair(std::string& out, const UdDebugSnapshot& s, const UdPairDebug& p) {
  const ud::PeerReport& r = p.report;
  out += "{\"module\":";
  JsonString(out, p.module);
  out += ",\"peer\":";
  JsonString(out, p.peer);
  out += ",\"device\":";
  JsonString(out, p.device);
  out += ",\"fetch\":";
  JsonString(out, p.fetch);
  out += ",\"address\":";
  if (p.address) {
    Address(out, *p.address);
  } else {
    out += "null";
  }
  out += ",\"sent\":" + std::to_string(r.sent) + ",\"received\":" + std::to_string(r.received) +
         ",\"lost\":" + std::to_string(r.lost) + ",\"late\":" + std::to_string(r.late) +
         ",\"send_errors\":" + std::to_string(r.send_errors) +
         ",\"loss_streak\":" + std::to_string(r.loss_streak) + ",\"loss_streak_since_unix\":";
  Instant(out, s, r.loss_streak > 0 ? r.streak_started_at : ud::Clock::time_point{});
  out += ",\"last_pong_unix\":";
  Instant(out, s, r.last_pong_at);
  out += ",\"last_answered_ping_sent_unix\":";
  Instant(out, s, r.last_answer_posted);
  out += ",\"rtt_recent\":{\"samples\":" + std::to_string(p.rtt_samples);
  if (p.rtt) {
    out += ",\"network_median_seconds\":";
    JsonNumber(out, p.rtt->network);
    out += ",\"responder_median_seconds\":";
    JsonNumber(out, p.rtt->responder);
    out += ",\"total_median_seconds\":";
    JsonNumber(out, p.rtt->total);
  }
  out += "}}";
}

}  // namespace

void RecentRtt::Add(const ud::Sample& s) {
  if (!s.valid) return;
  network_[next_] = static_cast<float>(s.network_seconds);
  responder_[next_] = static_cast<float>(s.responder_seconds);
  total_[next_] = static_cast<float>(s.total_seconds);
  next_ = (next_ + 1) % kCapacity;
  count_ = std::min(count_ + 1, kCapacity);
}

std::optional<RecentRtt::Medians> RecentRtt::Median() const {
  if (count_ == 0) return std::nullopt;
  return Medians{MedianOf(network_, count_), MedianOf(responder_, count_),
                 MedianOf(total_, count_)};
}

std::string UdDebugJson(const UdDebugSnapshot& s) {
  std::string out = "{\"interval_seconds\":";
  JsonNumber(out, s.interval_seconds);
  out += ",\"timeout_seconds\":";
  JsonNumber(out, s.timeout_seconds);
  out += ",\"devices\":[";
  for (size_t i = 0; i < s.devices.size(); ++i) {
    const auto& d = s.devices[i];
    if (i) out += ',';
    out += "{\"device\":";
    JsonString(out, d.device);
    out += ",\"address\":";
    Address(out, d.address);
    out += ",\"peers\":" + std::to_string(d.peers) + "}";
  }
  out += "],\"pairs\":[";
  for (size_t i = 0; i < s.pairs.size(); ++i) {
    if (i) out += ',';
    Pair(out, s, s.pairs[i]);
  }
  out += "]}";
  return out;
}

}  // namespace rxe::probes
