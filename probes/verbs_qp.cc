#include "probes/verbs_qp.h"

#include <cerrno>
#include <cstring>
#include <string>

namespace rxe::probes::verbs {
namespace {

constexpr uint8_t kMinRnrTimer = 12;  // 0.64 ms (perftest, rc_pingpong)
constexpr uint8_t kRetryCnt = 7;
constexpr uint8_t kRnrRetry = 7;   // 7 = retry forever on RNR NAK
constexpr uint8_t kHopLimit = 64;  // the kernel replaces it with the route's value on RoCE

std::optional<ProbeFailure> ModifyFailed(int ret, ibv_qp* qp, const char* state) {
  const int err = ret > 0 ? ret : errno;
  return ProbeFailure{FailureReason::kQpTransitionFailed,
                      std::string("ibv_modify_qp(QP ") + std::to_string(qp->qp_num) + " to " +
                          state + "): " + std::strerror(err),
                      ""};
}

}  // namespace

std::variant<QpPtr, ProbeFailure> CreateRcQp(ibv_pd* pd, ibv_cq* send_cq, ibv_cq* recv_cq,
                                             const RcQpCaps& caps) {
  ibv_qp_init_attr init{};
  init.send_cq = send_cq;
  init.recv_cq = recv_cq;
  init.qp_type = IBV_QPT_RC;
  init.sq_sig_all = 0;
  init.cap.max_send_wr = caps.sq_depth;
  init.cap.max_recv_wr = caps.rx_depth;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  init.cap.max_inline_data = caps.inline_size;
  QpPtr qp(ibv_create_qp(pd, &init));
  if (!qp) {
    return ProbeFailure{FailureReason::kInternal,
                        std::string("ibv_create_qp (send ") + std::to_string(caps.sq_depth) +
                            ", recv " + std::to_string(caps.rx_depth) + ", inline " +
                            std::to_string(caps.inline_size) + "): " + std::strerror(errno),
                        ""};
  }
  if (init.cap.max_inline_data < caps.inline_size) {
    return ProbeFailure{FailureReason::kInternal,
                        "QP inline cap " + std::to_string(init.cap.max_inline_data) +
                            " < requested inline_size " + std::to_string(caps.inline_size),
                        ""};
  }
  return qp;
}

std::optional<ProbeFailure> QpToInit(ibv_qp* qp, uint8_t port, unsigned access) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = port;
  attr.qp_access_flags = access;
  int ret = ibv_modify_qp(qp, &attr,
                          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
  if (ret != 0) return ModifyFailed(ret, qp, "INIT");
  return std::nullopt;
}

std::optional<ProbeFailure> QpToRtr(ibv_qp* qp, const RtrArgs& a) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTR;
  attr.path_mtu = a.path_mtu;
  attr.dest_qp_num = a.dest_qpn;
  attr.rq_psn = a.rq_psn;
  attr.max_dest_rd_atomic = 1;
  attr.min_rnr_timer = kMinRnrTimer;
  attr.ah_attr.is_global = 1;
  attr.ah_attr.dlid = 0;
  attr.ah_attr.sl = 0;
  attr.ah_attr.src_path_bits = 0;
  attr.ah_attr.port_num = a.port;
  std::memcpy(attr.ah_attr.grh.dgid.raw, a.dgid.data(), a.dgid.size());
  attr.ah_attr.grh.sgid_index = static_cast<uint8_t>(a.sgid_index);
  attr.ah_attr.grh.hop_limit = kHopLimit;
  attr.ah_attr.grh.traffic_class = 0;
  int ret = ibv_modify_qp(qp, &attr,
                          IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                              IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
  if (ret != 0) return ModifyFailed(ret, qp, "RTR");
  return std::nullopt;
}

std::optional<ProbeFailure> QpToRts(ibv_qp* qp, uint32_t sq_psn, uint8_t timeout) {
  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_RTS;
  attr.timeout = timeout;
  attr.retry_cnt = kRetryCnt;
  attr.rnr_retry = kRnrRetry;
  attr.sq_psn = sq_psn;
  attr.max_rd_atomic = 1;
  int ret = ibv_modify_qp(qp, &attr,
                          IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                              IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
  if (ret != 0) return ModifyFailed(ret, qp, "RTS");
  return std::nullopt;
}

}  // namespace rxe::probes::verbs
