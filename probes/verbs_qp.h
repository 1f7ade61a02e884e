// RC QP creation and the INIT -> RTR -> RTS transitions for RoCE, following
// rdma-core's rc_pingpong (pp_connect_ctx) and perftest's ctx_modify_qp_to_*.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <optional>
#include <variant>

#include "probes/failure.h"
#include "probes/gid_select.h"
#include "probes/verbs_raii.h"

namespace rxe::probes::verbs {

struct RcQpCaps {
  uint32_t sq_depth = 1;
  uint32_t rx_depth = 1;
  uint32_t inline_size = 0;
};

/// ibv_create_qp (RC, 1 SGE each way); checks the returned inline cap.
std::variant<QpPtr, ProbeFailure> CreateRcQp(ibv_pd* pd, ibv_cq* send_cq, ibv_cq* recv_cq,
                                             const RcQpCaps& caps);

/// RESET -> INIT with `access` (IBV_ACCESS_REMOTE_WRITE or 0; never REMOTE_READ).
std::optional<ProbeFailure> QpToInit(ibv_qp* qp, uint8_t port, unsigned access);

struct RtrArgs {
  uint8_t port = 1;
  uint32_t sgid_index = 0;
  Gid dgid{};
  uint32_t dest_qpn = 0;
  uint32_t rq_psn = 0;
  ibv_mtu path_mtu = IBV_MTU_1024;
};
/// INIT -> RTR: is_global=1 (required on RoCE), min_rnr_timer 12, max_dest_rd_atomic 1.
std::optional<ProbeFailure> QpToRtr(ibv_qp* qp, const RtrArgs& args);
/// RTR -> RTS: local ACK timeout `timeout` (4.096 us x 2^timeout; perftest's
/// default 14 = ~67 ms), retry_cnt 7, rnr_retry 7, max_rd_atomic 1.
std::optional<ProbeFailure> QpToRts(ibv_qp* qp, uint32_t sq_psn, uint8_t timeout);

}  // namespace rxe::probes::verbs
