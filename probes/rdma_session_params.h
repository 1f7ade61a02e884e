// Validation of SessionParams and the queue/buffer sizes derived from them
// (pure, unit-tested). Both sides derive the same shape from the same params.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "probes/engine.h"

namespace rxe::probes {

inline constexpr uint32_t kMaxQps = 64;
inline constexpr uint32_t kMaxTxDepth = 8192;
inline constexpr uint32_t kMaxIterations = 1000000;
inline constexpr uint32_t kMinSendBwRxDepth = 512;  // perftest's default rx_depth for send_bw
/// Receive depth for send_lat (ping-pong needs 1; spares keep RNR away).
inline constexpr uint32_t kLatencyRxDepth = 8;
/// ib_send_lat signals one SEND in every `-Q` (default 100) and polls the send
/// CQ only then; the unsignalled SENDs still occupy send-queue slots until the
/// next signalled one completes, so the send queue holds that many.
inline constexpr uint32_t kSendLatSignalEvery = 100;

struct SessionShape {
  uint32_t qps = 1;           // latency types always use 1 QP
  uint32_t sq_depth = 1;      // send WRs per QP
  uint32_t rx_depth = 1;      // receive WRs per QP
  uint32_t region_bytes = 0;  // size rounded up to 64 bytes
  uint64_t buffer_bytes = 0;  // 2 regions: [receive | send]
};

/// Whether the peer RDMA-writes into this side's buffer: write_bw's responder and both
/// sides of write_lat. Only then is the buffer registered (and the QPs set up) with
/// IBV_ACCESS_REMOTE_WRITE; send types move data with SEND/RECV and need no remote access.
bool PeerWritesHere(config::ProbeType type, Role role);

/// The shape for `params` on side `role`, or a message saying what is invalid
/// (including a buffer larger than `max_buffer_bytes`).
std::variant<SessionShape, std::string> ShapeSession(const SessionParams& params, Role role,
                                                     uint64_t max_buffer_bytes);

}  // namespace rxe::probes
