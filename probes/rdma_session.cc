// RdmaSession::Create and the session implementation: device/GID selection,
// PD, one scratch MR, send/receive CQs and `qps` RC QPs in INIT
// (rc_pingpong's order); probes are dispatched to the *_probe.cc files.
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <string>
#include <utility>

#include "common/log.h"
#include "probes/engine.h"
#include "probes/rdma_session_core.h"
#include "probes/rdma_session_params.h"
#include "probes/send_bw_probe.h"
#include "probes/send_lat_probe.h"
#include "probes/verbs_device.h"
#include "probes/verbs_qp.h"
#include "probes/write_bw_probe.h"
#include "probes/write_lat_probe.h"

namespace rxe::probes {
namespace {

using config::ProbeType;

ProbeFailure Fail(FailureReason r, std::string detail) {
  return ProbeFailure{r, std::move(detail), ""};
}

ProbeFailure Errno(const char* what, const std::string& hint = "") {
  return Fail(FailureReason::kInternal, std::string(what) + ": " + std::strerror(errno) + hint);
}

// Event mode: how many CQ events this side slept for (debug log; the lab checks both sides).
void LogCqEvents(const SessionCore& c) {
  if (c.events.channel == nullptr) return;
  log::Debug("probe completion events", {{"type", config::ProbeTypeName(c.params.type)},
                                         {"role", c.role == Role::kClient ? "client" : "responder"},
                                         {"cq_events", std::to_string(c.events.events)}});
}

// A QP teardown slower than this is logged (ibv_destroy_qp normally takes milliseconds).
constexpr auto kSlowTeardown = std::chrono::seconds(1);

class RdmaSessionImpl final : public RdmaSession {
 public:
  SessionCore core;

  ~RdmaSessionImpl() override {
    // rdma_rxe's destroy_qp waits (up to 50 s on Debian's 6.1) until nothing holds a reference
    // to the QP, e.g. its packets still queued to a NIC that stopped sending (seen in the lab),
    // then logs a WARN in __rxe_cleanup. Say so here, where an operator reads the daemon's log.
    const auto t0 = Clock::now();
    core.qps.clear();
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0);
    if (took >= kSlowTeardown) {
      log::Warn("destroying a probe's queue pairs was slow",
                {{"device", core.device},
                 {"type", std::string(config::ProbeTypeName(core.params.type))},
                 {"role", core.role == Role::kClient ? "client" : "responder"},
                 {"ms", std::to_string(took.count())},
                 {"hint", "the driver waited for references to the QP, e.g. packets queued to a "
                          "NIC that does not send them (rdma_rxe: a WARN in __rxe_cleanup in the "
                          "kernel log); check the NIC's TX counters"}});
    }
  }

  EndpointInfo Local() const override { return LocalInfo(core); }
  std::string DeviceName() const override { return core.device; }
  int GidIndex() const override { return static_cast<int>(core.gid_index); }

  std::optional<ProbeFailure> Connect(const EndpointInfo& remote, uint32_t path_mtu) override {
    return ConnectCore(core, remote, path_mtu);
  }

  ProbeResult<Measurement> RunClient(Clock::time_point deadline,
                                     const std::atomic<bool>& cancel) override {
    if (core.role != Role::kClient || !core.connected) {
      return Fail(FailureReason::kInternal, "RunClient on a responder or unconnected session");
    }
    switch (core.params.type) {
      case ProbeType::kWriteBw:
        return RunWriteBwClient(core, deadline, cancel);
      case ProbeType::kSendBw:
        return RunSendBwClient(core, deadline, cancel);
      case ProbeType::kSendLat: {
        auto r = RunSendLatClient(core, deadline, cancel);
        LogCqEvents(core);
        return r;
      }
      case ProbeType::kWriteLat:
        return RunWriteLatClient(core, deadline, cancel);
      case ProbeType::kUdPing:
        break;  // not an RC session
    }
    return Fail(FailureReason::kInternal, "unknown probe type");
  }

  std::optional<ProbeFailure> RunResponder(Clock::time_point deadline,
                                           const std::atomic<bool>& done,
                                           const std::atomic<bool>& cancel) override {
    if (core.role != Role::kResponder || !core.connected) {
      return Fail(FailureReason::kInternal, "RunResponder on a client or unconnected session");
    }
    switch (core.params.type) {
      case ProbeType::kWriteBw:
        return RunWriteBwResponder(core, deadline, done, cancel);
      case ProbeType::kSendBw:
        return RunSendBwResponder(core, deadline, done, cancel);
      case ProbeType::kSendLat: {
        auto f = RunSendLatResponder(core, deadline, done, cancel);
        LogCqEvents(core);
        return f;
      }
      case ProbeType::kWriteLat:
        return RunWriteLatResponder(core, deadline, done, cancel);
      case ProbeType::kUdPing:
        break;  // not an RC session
    }
    return Fail(FailureReason::kInternal, "unknown probe type");
  }
};

}  // namespace

ProbeResult<std::unique_ptr<RdmaSession>> RdmaSession::Create(const SessionParams& params,
                                                              Role role, const LocalTarget& where,
                                                              uint64_t max_buffer_bytes) {
  // Bad parameters: the responder refuses the session; on the client they are
  // a bug (the config loader validates modules).
  const FailureReason bad =
      role == Role::kResponder ? FailureReason::kRejected : FailureReason::kInternal;
  auto shaped = ShapeSession(params, role, max_buffer_bytes);
  if (auto* msg = std::get_if<std::string>(&shaped)) return Fail(bad, *msg);
  const SessionShape shape = std::get<SessionShape>(shaped);

  auto opened_or = verbs::OpenPortForTarget(where);
  if (auto* f = std::get_if<ProbeFailure>(&opened_or)) return std::move(*f);
  verbs::OpenedPort& op = std::get<verbs::OpenedPort>(opened_or);

  auto session = std::make_unique<RdmaSessionImpl>();
  SessionCore& c = session->core;
  c.params = params;
  c.role = role;
  c.ctx = std::move(op.ctx);
  c.device = op.device;
  c.port = op.port;
  c.gid_index = op.gid_index;
  c.gid = op.gid;
  c.active_mtu_bytes = verbs::MtuBytes(op.port_attr.active_mtu);
  c.region_bytes = shape.region_bytes;
  c.sq_depth = shape.sq_depth;
  c.rx_depth = shape.rx_depth;

  if (params.size > op.port_attr.max_msg_sz) {
    return Fail(bad, "size " + std::to_string(params.size) +
                         " exceeds the port's max message size " +
                         std::to_string(op.port_attr.max_msg_sz));
  }
  const auto max_wr = static_cast<uint32_t>(op.device_attr.max_qp_wr);
  if (shape.sq_depth > max_wr || shape.rx_depth > max_wr) {
    return Fail(bad, "queue depth above the device's max_qp_wr " + std::to_string(max_wr));
  }
  const uint64_t send_cqe = uint64_t{shape.qps} * shape.sq_depth;
  const uint64_t recv_cqe = uint64_t{shape.qps} * shape.rx_depth;
  if (send_cqe > static_cast<uint64_t>(op.device_attr.max_cqe) ||
      recv_cqe > static_cast<uint64_t>(op.device_attr.max_cqe)) {
    return Fail(bad, "qps x queue depth above the device's max_cqe " +
                         std::to_string(op.device_attr.max_cqe));
  }

  c.pd.reset(ibv_alloc_pd(c.ctx.get()));
  if (!c.pd) return Errno("ibv_alloc_pd");
  c.buffer = verbs::AllocateBuffer(shape.buffer_bytes);
  if (!c.buffer) return Errno("allocate probe buffer");
  // LOCAL_WRITE, plus REMOTE_WRITE only where the peer writes into this buffer
  // (PeerWritesHere). Never REMOTE_READ.
  c.mr_access = IBV_ACCESS_LOCAL_WRITE;
  if (PeerWritesHere(params.type, role)) c.mr_access |= IBV_ACCESS_REMOTE_WRITE;
  c.mr.reset(
      ibv_reg_mr(c.pd.get(), c.buffer.get(), shape.buffer_bytes, static_cast<int>(c.mr_access)));
  if (!c.mr) {
    return Errno("ibv_reg_mr",
                 errno == ENOMEM ? " (RLIMIT_MEMLOCK too low? see LimitMEMLOCK=)" : "");
  }
  if (params.use_event) {  // perftest -e: both CQs on one channel (rc_pingpong's order)
    c.channel = verbs::CreateNonBlockingCompChannel(c.ctx.get());
    if (!c.channel) return Errno("ibv_create_comp_channel");
    c.events.channel = c.channel.get();
  }
  c.send_cq.reset(
      ibv_create_cq(c.ctx.get(), static_cast<int>(send_cqe), nullptr, c.channel.get(), 0));
  if (!c.send_cq) return Errno("ibv_create_cq (send)");
  c.recv_cq.reset(
      ibv_create_cq(c.ctx.get(), static_cast<int>(recv_cqe), nullptr, c.channel.get(), 0));
  if (!c.recv_cq) return Errno("ibv_create_cq (recv)");

  std::random_device rd;
  std::mt19937 rng(rd());
  const verbs::RcQpCaps caps{shape.sq_depth, shape.rx_depth, params.inline_size};
  for (uint32_t q = 0; q < shape.qps; ++q) {
    auto qp_or = verbs::CreateRcQp(c.pd.get(), c.send_cq.get(), c.recv_cq.get(), caps);
    if (auto* f = std::get_if<ProbeFailure>(&qp_or)) return std::move(*f);
    c.qps.push_back(std::move(std::get<verbs::QpPtr>(qp_or)));
    if (auto f =
            verbs::QpToInit(c.qps.back().get(), c.port, c.mr_access & IBV_ACCESS_REMOTE_WRITE)) {
      return std::move(*f);
    }
    c.psns.push_back(static_cast<uint32_t>(rng()) & 0xffffff);
  }
  log::Debug("probe session created", {{"type", config::ProbeTypeName(params.type)},
                                       {"role", role == Role::kClient ? "client" : "responder"},
                                       {"device", c.device},
                                       {"gid_index", std::to_string(c.gid_index)},
                                       {"gid", GidToString(c.gid)},
                                       {"completions", params.use_event ? "events" : "busy_poll"}});
  return std::unique_ptr<RdmaSession>(std::move(session));
}

}  // namespace rxe::probes
