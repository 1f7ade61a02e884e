// The verbs data path of one probe session, used by both sides:
//  - the prober (client) creates a session, exchanges EndpointInfo with the
//    responder over the control protocol, connects and runs the probe;
//  - the responder creates the mirror session and serves it.
// Order follows rdma-core's rc_pingpong: open device, PD, MR, CQ, QPs (INIT),
// exchange, RTR, RTS, traffic, teardown (reverse order, RAII).
#pragma once

#include <netinet/in.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "config/model.h"
#include "probes/failure.h"

namespace rxe::probes {

using Clock = std::chrono::steady_clock;

/// Parameters both sides agree on (sent by the client in the control protocol).
struct SessionParams {
  config::ProbeType type = config::ProbeType::kWriteBw;
  uint32_t size = 65536;         // message size in bytes
  uint32_t qps = 1;
  uint32_t post_list = 1;
  uint32_t cq_moderation = 1;
  uint32_t tx_depth = 128;       // latency types use 1
  uint32_t inline_size = 0;
  uint32_t iterations = 1000;    // latency
  std::chrono::milliseconds duration{1000};  // bandwidth
  uint32_t mtu = 0;              // requested path MTU in bytes; 0 = auto (min of both active MTUs)
  /// Local ACK timeout of the session's QPs, 4.096 us x 2^qp_timeout (perftest -u; 14 = ~67 ms).
  /// Sent in HELLO when not 14, so the responder's QPs use the prober's value too.
  uint8_t qp_timeout = 14;
  /// send_lat: both sides sleep on a completion channel instead of busy-polling (perftest -e).
  bool use_event = false;
};

/// Where the local side lives. The local IP is the one the control TCP
/// connection uses (getsockname), so both sides pick the RoCE v2 GID of the
/// address that actually routes to the peer; peer = self gives rxe loopback.
struct LocalTarget {
  in_addr local_ip{};
  std::string device;              // override; empty = device whose GID table has local_ip
  std::optional<int> gid_index;    // override; nullopt = auto
};

struct QpEndpoint {
  uint32_t qpn = 0;
  uint32_t psn = 0;
};

/// What one side tells the other (the control protocol carries this).
struct EndpointInfo {
  std::array<uint8_t, 16> gid{};
  std::vector<QpEndpoint> qps;
  uint64_t addr = 0;        // scratch buffer address (RDMA WRITE target)
  uint32_t rkey = 0;        // REMOTE_WRITE only, never REMOTE_READ
  uint32_t buffer_bytes = 0;
  uint32_t active_mtu = 0;  // bytes
};

struct BandwidthMeasurement {
  uint64_t bytes = 0;
  uint64_t messages = 0;
  Clock::duration elapsed{};  // last completion - first post (perftest's BW average window)
};

struct LatencyMeasurement {
  std::vector<double> rtt_seconds;  // one sample per iteration (full round trip)
};

using Measurement = std::variant<BandwidthMeasurement, LatencyMeasurement>;

template <typename T>
using ProbeResult = std::variant<T, ProbeFailure>;

enum class Role { kClient, kResponder };

class RdmaSession {
 public:
  virtual ~RdmaSession() = default;
  /// Allocates device context, PD, scratch MR, CQ(s), QPs in INIT.
  static ProbeResult<std::unique_ptr<RdmaSession>> Create(const SessionParams& params, Role role,
                                                          const LocalTarget& where,
                                                          uint64_t max_buffer_bytes);
  virtual EndpointInfo Local() const = 0;
  virtual std::string DeviceName() const = 0;
  virtual int GidIndex() const = 0;
  /// INIT->RTR->RTS towards `remote` with path MTU `path_mtu` bytes.
  virtual std::optional<ProbeFailure> Connect(const EndpointInfo& remote, uint32_t path_mtu) = 0;
  /// Client: runs the probe until done, `deadline` or `cancel`.
  virtual ProbeResult<Measurement> RunClient(Clock::time_point deadline,
                                             const std::atomic<bool>& cancel) = 0;
  /// Responder: serves the probe (posts receives / echoes ping-pongs) until
  /// the client is done (`done` set by the control channel), `deadline` or `cancel`.
  virtual std::optional<ProbeFailure> RunResponder(Clock::time_point deadline,
                                                   const std::atomic<bool>& done,
                                                   const std::atomic<bool>& cancel) = 0;
};

}  // namespace rxe::probes
