#include "probes/rdma_session_params.h"

#include <algorithm>

#include "config/model.h"

namespace rxe::probes {
namespace {

std::string Num(uint64_t v) { return std::to_string(v); }

bool ValidMtu(uint32_t mtu) {
  return mtu == 0 || mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

}  // namespace

bool PeerWritesHere(config::ProbeType type, Role role) {
  return type == config::ProbeType::kWriteLat ||
         (type == config::ProbeType::kWriteBw && role == Role::kResponder);
}

std::variant<SessionShape, std::string> ShapeSession(const SessionParams& p, Role role,
                                                     uint64_t max_buffer_bytes) {
  if (p.size == 0) return std::string("size must be >= 1");
  if (!ValidMtu(p.mtu)) return "mtu " + Num(p.mtu) + " is not one of 256, 512, 1024, 2048, 4096";
  if (p.use_event && p.type != config::ProbeType::kSendLat) {
    return std::string("use_event (completion events) is only supported by send_lat probes");
  }
  SessionShape s;
  if (config::IsBandwidth(p.type)) {
    if (p.qps == 0 || p.qps > kMaxQps) return "qps must be 1.." + Num(kMaxQps);
    if (p.tx_depth == 0 || p.tx_depth > kMaxTxDepth)
      return "tx_depth must be 1.." + Num(kMaxTxDepth);
    if (p.post_list == 0 || p.cq_moderation == 0)
      return std::string("post_list and cq_moderation must be >= 1");
    // With every cq_moderation-th WR signalled, up to cq_moderation-1 WRs stay
    // unacknowledged; a full post list must still fit next to them.
    if (uint64_t{p.cq_moderation} + p.post_list - 1 > p.tx_depth) {
      return "cq_moderation + post_list - 1 (" + Num(uint64_t{p.cq_moderation} + p.post_list - 1) +
             ") must be <= tx_depth (" + Num(p.tx_depth) + ")";
    }
    if (p.duration.count() <= 0) return std::string("duration must be > 0");
    s.qps = p.qps;
    const bool client = role == Role::kClient;
    s.sq_depth = client ? p.tx_depth : 1;
    s.rx_depth = 1;
    if (!client && p.type == config::ProbeType::kSendBw) {
      // Enough receives that the client (tx_depth in flight) never meets RNR.
      s.rx_depth = std::min(std::max(kMinSendBwRxDepth, 2 * p.tx_depth), 2 * kMaxTxDepth);
    }
  } else {
    if (p.iterations == 0 || p.iterations > kMaxIterations) {
      return "iterations must be 1.." + Num(kMaxIterations);
    }
    s.qps = 1;
    const bool send = p.type == config::ProbeType::kSendLat;
    s.sq_depth = send ? kSendLatSignalEvery + 1 : 2;
    s.rx_depth = send ? kLatencyRxDepth : 1;
  }
  s.region_bytes = static_cast<uint32_t>((uint64_t{p.size} + 63) / 64 * 64);
  if (s.region_bytes < p.size) return std::string("size too large");
  s.buffer_bytes = 2 * uint64_t{s.region_bytes};
  if (s.buffer_bytes > max_buffer_bytes) {
    return "buffer of " + Num(s.buffer_bytes) + " bytes (2 x size) exceeds max_buffer_bytes " +
           Num(max_buffer_bytes);
  }
  return s;
}

}  // namespace rxe::probes
