// The state of one probe session shared by rdma_session.cc (setup, connect)
// and the per-type probe files (*_probe.cc). Not part of the public contract
// (probes/engine.h is).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probes/engine.h"
#include "probes/gid_select.h"
#include "probes/verbs_event.h"
#include "probes/verbs_raii.h"

namespace rxe::probes {

struct SessionCore {
  SessionParams params;
  Role role = Role::kClient;

  // Verbs resources in creation order: members are destroyed in reverse
  // declaration order, so QPs go first and the device context last, and the
  // buffer outlives its MR.
  verbs::ContextPtr ctx;
  verbs::PdPtr pd;
  verbs::BufferPtr buffer;
  verbs::MrPtr mr;
  verbs::CompChannelPtr channel;  // params.use_event only; outlives the CQs created on it
  verbs::CqPtr send_cq;
  verbs::CqPtr recv_cq;
  std::vector<verbs::QpPtr> qps;

  std::string device;
  uint8_t port = 1;
  uint32_t gid_index = 0;
  Gid gid{};
  uint32_t active_mtu_bytes = 0;
  unsigned mr_access = 0;     // IBV_ACCESS_* of the MR (and the QPs' remote access)
  uint32_t region_bytes = 0;  // the buffer is [receive region | send region]
  uint32_t sq_depth = 1;      // send queue depth per QP
  uint32_t rx_depth = 1;      // receive queue depth per QP
  std::vector<uint32_t> psns;

  CqEvents events;  // event mode: the channel above and the events read from it

  EndpointInfo remote;
  bool connected = false;

  uint8_t* RecvRegion() const { return buffer.get(); }
  uint8_t* SendRegion() const { return buffer.get() + region_bytes; }
  bool UseInline() const { return params.inline_size > 0 && params.size <= params.inline_size; }
  /// Whether this side consumes SENDs (and so keeps receives posted).
  bool NeedsReceives() const;
  /// Posts `count` receives of `params.size` bytes into the receive region of
  /// QP `q` (wr_id = q), chained in one ibv_post_recv call.
  std::optional<ProbeFailure> PostReceives(size_t q, uint32_t count);
};

/// Failure for a failed ibv_post_send/ibv_post_recv (`ret` = its return value).
ProbeFailure PostFailure(int ret, const char* what);

/// What this side tells the peer (GID, QPNs/PSNs, receive region, active MTU).
EndpointInfo LocalInfo(const SessionCore& core);
/// Validates `remote` and the MTU, posts the initial receives and moves every
/// QP INIT -> RTR -> RTS (see RdmaSession::Connect).
std::optional<ProbeFailure> ConnectCore(SessionCore& core, const EndpointInfo& remote,
                                        uint32_t path_mtu);

}  // namespace rxe::probes
