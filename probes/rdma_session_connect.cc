// Connect half of a session: EndpointInfo, MTU check, initial receives and
// the QP transitions (rc_pingpong order: post receives, RTR, RTS).
#include <cerrno>
#include <cstring>
#include <string>

#include "probes/rdma_session_core.h"
#include "probes/verbs_device.h"
#include "probes/verbs_qp.h"

namespace rxe::probes {
namespace {

ProbeFailure Fail(FailureReason r, std::string detail) {
  return ProbeFailure{r, std::move(detail), ""};
}

// Whether this side RDMA-WRITEs into the peer's buffer.
bool WritesToPeer(const SessionCore& core) {
  return core.params.type == config::ProbeType::kWriteLat ||
         (core.params.type == config::ProbeType::kWriteBw && core.role == Role::kClient);
}

}  // namespace

bool SessionCore::NeedsReceives() const {
  return params.type == config::ProbeType::kSendLat ||
         (params.type == config::ProbeType::kSendBw && role == Role::kResponder);
}

std::optional<ProbeFailure> SessionCore::PostReceives(size_t q, uint32_t count) {
  constexpr uint32_t kChain = 32;
  ibv_sge sge[kChain];
  ibv_recv_wr wr[kChain];
  while (count > 0) {
    const uint32_t n = count < kChain ? count : kChain;
    for (uint32_t i = 0; i < n; ++i) {
      sge[i] = ibv_sge{reinterpret_cast<uintptr_t>(RecvRegion()), params.size, mr->lkey};
      wr[i] = ibv_recv_wr{};
      wr[i].wr_id = q;
      wr[i].sg_list = &sge[i];
      wr[i].num_sge = 1;
      wr[i].next = i + 1 < n ? &wr[i + 1] : nullptr;
    }
    ibv_recv_wr* bad = nullptr;
    if (int ret = ibv_post_recv(qps[q].get(), wr, &bad); ret != 0) {
      return PostFailure(ret, "ibv_post_recv");
    }
    count -= n;
  }
  return std::nullopt;
}

ProbeFailure PostFailure(int ret, const char* what) {
  const int err = ret > 0 ? ret : errno;
  return Fail(FailureReason::kInternal, std::string(what) + ": " + std::strerror(err));
}

EndpointInfo LocalInfo(const SessionCore& core) {
  EndpointInfo info;
  info.gid = core.gid;
  for (size_t i = 0; i < core.qps.size(); ++i) {
    info.qps.push_back(QpEndpoint{core.qps[i]->qp_num, core.psns[i]});
  }
  info.addr = reinterpret_cast<uintptr_t>(core.RecvRegion());
  // Only a buffer registered with REMOTE_WRITE has a key worth telling.
  info.rkey = (core.mr_access & IBV_ACCESS_REMOTE_WRITE) != 0 ? core.mr->rkey : 0;
  info.buffer_bytes = core.region_bytes;
  info.active_mtu = core.active_mtu_bytes;
  return info;
}

std::optional<ProbeFailure> ConnectCore(SessionCore& core, const EndpointInfo& remote,
                                        uint32_t path_mtu) {
  if (core.connected) return Fail(FailureReason::kInternal, "session already connected");
  if (remote.qps.size() != core.qps.size()) {
    return Fail(FailureReason::kProtocolError, "peer has " + std::to_string(remote.qps.size()) +
                                                   " QPs, expected " +
                                                   std::to_string(core.qps.size()));
  }
  if (WritesToPeer(core) &&
      (remote.rkey == 0 || remote.addr == 0 || remote.buffer_bytes < core.params.size)) {
    return Fail(FailureReason::kProtocolError,
                "peer buffer (" + std::to_string(remote.buffer_bytes) + " bytes, rkey " +
                    std::to_string(remote.rkey) + ") cannot take " +
                    std::to_string(core.params.size) + "-byte writes");
  }

  uint32_t mtu = path_mtu;
  if (mtu == 0) {
    mtu = core.active_mtu_bytes;
    if (remote.active_mtu != 0 && remote.active_mtu < mtu) mtu = remote.active_mtu;
  }
  std::optional<ibv_mtu> mtu_enum = verbs::MtuFromBytes(mtu);
  if (!mtu_enum) {
    return Fail(FailureReason::kRejected, "mtu " + std::to_string(mtu) + " is not a valid IB MTU");
  }
  if (mtu > core.active_mtu_bytes) {
    return Fail(FailureReason::kMtuAboveActive,
                "Requested mtu is higher than active mtu (requested " + std::to_string(mtu) +
                    ", active " + std::to_string(core.active_mtu_bytes) + " on " + core.device +
                    ")");
  }

  if (core.NeedsReceives()) {
    for (size_t q = 0; q < core.qps.size(); ++q) {
      if (auto f = core.PostReceives(q, core.rx_depth)) return f;
    }
  }
  for (size_t q = 0; q < core.qps.size(); ++q) {
    verbs::RtrArgs rtr;
    rtr.port = core.port;
    rtr.sgid_index = core.gid_index;
    rtr.dgid = remote.gid;
    rtr.dest_qpn = remote.qps[q].qpn;
    rtr.rq_psn = remote.qps[q].psn & 0xffffff;
    rtr.path_mtu = *mtu_enum;
    if (auto f = verbs::QpToRtr(core.qps[q].get(), rtr)) return f;
    if (auto f = verbs::QpToRts(core.qps[q].get(), core.psns[q], core.params.qp_timeout)) return f;
  }
  core.remote = remote;
  core.connected = true;
  return std::nullopt;
}

}  // namespace rxe::probes
