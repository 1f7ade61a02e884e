#include "probes/ud_endpoint.h"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <array>
#include <random>

#include "common/log.h"
#include "probes/ud_wire.h"
#include "probes/verbs_device.h"

namespace rxe::probes::ud {
namespace {

constexpr uint64_t kRecvFlag = uint64_t{1} << 63;

ProbeFailure Fail(FailureReason r, std::string detail) {
  return ProbeFailure{r, std::move(detail), ""};
}

ProbeFailure Errno(const char* what, int err = errno) {
  return Fail(FailureReason::kInternal, std::string(what) + ": " + std::strerror(err));
}

}  // namespace

void AhDeleter::operator()(ibv_ah* ah) const noexcept {
  if (ah == nullptr) return;
  if (const int ret = ibv_destroy_ah(ah); ret != 0) {
    log::Warn("verbs teardown failed",
              {{"call", "ibv_destroy_ah"}, {"error", std::strerror(ret > 0 ? ret : errno)}});
  }
}

ProbeResult<std::unique_ptr<Endpoint>> Endpoint::Create(const LocalTarget& where,
                                                        const EndpointOptions& opts) {
  if (opts.message_bytes < kHeaderBytes) {
    return Fail(FailureReason::kInternal, "ud_ping size " + std::to_string(opts.message_bytes) +
                                              " is below the " + std::to_string(kHeaderBytes) +
                                              "-byte ping header");
  }
  auto opened = verbs::OpenPortForTarget(where);
  if (auto* f = std::get_if<ProbeFailure>(&opened)) return std::move(*f);
  auto& op = std::get<verbs::OpenedPort>(opened);
  std::unique_ptr<Endpoint> ep(new Endpoint());
  ep->opts_ = opts;
  ep->device_ = op.device;
  ep->port_ = op.port;
  ep->gid_index_ = op.gid_index;
  ep->gid_ = op.gid;
  ep->active_mtu_bytes_ = verbs::MtuBytes(op.port_attr.active_mtu);
  ep->capacity_ = std::max<uint32_t>({opts.message_bytes, 1024, ep->active_mtu_bytes_});
  ep->ctx_ = std::move(op.ctx);
  if (opts.message_bytes > ep->active_mtu_bytes_) {
    return Fail(FailureReason::kMtuAboveActive,
                "ud_ping size " + std::to_string(opts.message_bytes) + " is above the active MTU " +
                    std::to_string(ep->active_mtu_bytes_) + " of " + ep->device_ +
                    " (a UD message must fit one packet)");
  }
  const auto max_wr = static_cast<uint32_t>(op.device_attr.max_qp_wr);
  if (opts.recv_slots > max_wr || opts.send_slots > max_wr) {
    return Fail(FailureReason::kInternal, "ud_ping queue depth above max_qp_wr " +
                                              std::to_string(max_wr));
  }
  if (auto f = ep->Build()) return std::move(*f);
  return ep;
}

std::optional<ProbeFailure> Endpoint::Build() {
  pd_.reset(ibv_alloc_pd(ctx_.get()));
  if (!pd_) return Errno("ibv_alloc_pd");
  // Non-blocking: the loop only reads the channel after poll() says it is readable, but a
  // spurious wake-up must not block the thread that also sends the pings.
  channel_ = verbs::CreateNonBlockingCompChannel(ctx_.get());
  if (!channel_) return Errno("ibv_create_comp_channel (non-blocking)");
  const int cqe = static_cast<int>(opts_.recv_slots + opts_.send_slots);
  cq_.reset(ibv_create_cq(ctx_.get(), cqe, nullptr, channel_.get(), 0));
  if (!cq_) return Errno("ibv_create_cq");
  const size_t slots = size_t{opts_.recv_slots} + opts_.send_slots;
  buffer_ = verbs::AllocateBuffer(slots * SlotBytes());
  if (!buffer_) return Errno("allocate ud_ping buffer");
  // An int, not the enum: ibv_reg_mr() is a macro that ORs in an ib_uverbs_access_flags value
  // (clang: -Wdeprecated-enum-enum-conversion).
  mr_.reset(ibv_reg_mr(pd_.get(), buffer_.get(), slots * SlotBytes(),
                       static_cast<int>(IBV_ACCESS_LOCAL_WRITE)));
  if (!mr_) return Errno("ibv_reg_mr (check the memlock limit)");

  ibv_qp_init_attr init{};
  init.send_cq = cq_.get();
  init.recv_cq = cq_.get();
  init.cap.max_send_wr = opts_.send_slots;
  init.cap.max_recv_wr = opts_.recv_slots;
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  init.qp_type = IBV_QPT_UD;
  init.sq_sig_all = 0;  // only sends with IBV_SEND_SIGNALED (and failed ones) complete
  qp_.reset(ibv_create_qp(pd_.get(), &init));
  if (!qp_) return Errno("ibv_create_qp (UD)");

  ibv_qp_attr attr{};
  attr.qp_state = IBV_QPS_INIT;
  attr.pkey_index = 0;
  attr.port_num = port_;
  attr.qkey = opts_.qkey;
  if (int r = ibv_modify_qp(qp_.get(), &attr,
                            IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)) {
    return Fail(FailureReason::kQpTransitionFailed,
                std::string("UD QP RESET->INIT: ") + std::strerror(r));
  }
  attr = {};
  attr.qp_state = IBV_QPS_RTR;
  if (int r = ibv_modify_qp(qp_.get(), &attr, IBV_QP_STATE)) {
    return Fail(FailureReason::kQpTransitionFailed,
                std::string("UD QP INIT->RTR: ") + std::strerror(r));
  }
  attr = {};
  attr.qp_state = IBV_QPS_RTS;
  attr.sq_psn = std::random_device{}() & 0xffffff;
  if (int r = ibv_modify_qp(qp_.get(), &attr, IBV_QP_STATE | IBV_QP_SQ_PSN)) {
    return Fail(FailureReason::kQpTransitionFailed,
                std::string("UD QP RTR->RTS: ") + std::strerror(r));
  }
  for (uint32_t s = 0; s < opts_.recv_slots; ++s) {
    if (auto f = RepostRecv(s)) return f;
  }
  send_slots_.emplace(opts_.send_slots, opts_.signal_every);
  if (int r = ibv_req_notify_cq(cq_.get(), 0)) return Errno("ibv_req_notify_cq", r);
  return std::nullopt;
}

Endpoint::~Endpoint() {
  if (cq_ && unacked_events_ > 0) ibv_ack_cq_events(cq_.get(), unacked_events_);
}

EndpointAddress Endpoint::Address() const { return {gid_, qp_->qp_num, opts_.qkey}; }

std::optional<uint32_t> Endpoint::AcquireSendSlot() { return send_slots_->Acquire(); }

std::span<uint8_t> Endpoint::SendPayload(uint32_t slot) {
  uint8_t* base = buffer_.get() + (size_t{opts_.recv_slots} + slot) * SlotBytes();
  return {base, opts_.message_bytes};
}

bool Endpoint::QpInError() const {
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  if (ibv_query_qp(qp_.get(), &attr, IBV_QP_STATE, &init) != 0) return false;
  return attr.qp_state == IBV_QPS_ERR;
}

void Endpoint::ForgetAddress(const Gid& gid) {
  auto it = ahs_.find(gid);
  if (it == ahs_.end() || it->second.in_flight > 0) return;
  lru_.erase(it->second.lru);
  ahs_.erase(it);
}

void Endpoint::EvictAddressHandles() {
  // Oldest first; an AH with a send in flight stays (destroying it then is undefined on a
  // NIC). send_slots < max_address_handles, so one without sends in flight exists.
  for (auto it = lru_.end(); ahs_.size() >= opts_.max_address_handles && it != lru_.begin();) {
    --it;
    auto found = ahs_.find(*it);
    if (found->second.in_flight > 0) continue;
    it = lru_.erase(it);
    ahs_.erase(found);
    ++ah_evictions_;
  }
}

ibv_ah* Endpoint::AddressHandle(const Gid& gid) {
  if (auto it = ahs_.find(gid); it != ahs_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
    return it->second.ah.get();
  }
  EvictAddressHandles();
  ibv_ah_attr a{};
  a.is_global = 1;  // RoCE: the GRH carries the destination GID (the IP address for RoCE v2)
  std::memcpy(a.grh.dgid.raw, gid.data(), gid.size());
  a.grh.sgid_index = static_cast<uint8_t>(gid_index_);
  a.grh.hop_limit = 64;
  a.port_num = port_;
  AhPtr ah(ibv_create_ah(pd_.get(), &a));
  if (!ah) return nullptr;
  lru_.push_front(gid);
  return ahs_.emplace(gid, CachedAh{std::move(ah), 0, lru_.begin()}).first->second.ah.get();
}

std::optional<ProbeFailure> Endpoint::PostSend(uint32_t slot, const EndpointAddress& to,
                                               uint64_t tag, uint32_t length) {
  ibv_ah* ah = AddressHandle(to.gid);
  if (ah == nullptr) {
    const int err = errno;
    send_slots_->Release(slot);
    return Fail(FailureReason::kNoRoute,
                "ibv_create_ah to " + GidToString(to.gid) + ": " + std::strerror(err));
  }
  std::span<uint8_t> payload = SendPayload(slot);
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(payload.data());
  sge.length = length == 0 ? opts_.message_bytes : std::min(length, capacity_);
  if (sge.length > payload.size()) {  // a longer send (a pong as long as its ping): zero padding
    std::memset(payload.data() + payload.size(), 0, sge.length - payload.size());
  }
  sge.lkey = mr_->lkey;
  ibv_send_wr wr{};
  wr.wr_id = slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  const bool signaled = send_slots_->ShouldSignal();
  wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
  wr.wr.ud.ah = ah;
  wr.wr.ud.remote_qpn = to.qpn;
  wr.wr.ud.remote_qkey = to.qkey;
  ibv_send_wr* bad = nullptr;
  if (int r = ibv_post_send(qp_.get(), &wr, &bad)) {
    send_slots_->Release(slot);
    return Errno("ibv_post_send (UD)", r);
  }
  send_slots_->Posted(slot, tag, to.gid, signaled);
  ++ahs_.at(to.gid).in_flight;
  return std::nullopt;
}

std::span<const uint8_t> Endpoint::RecvPayload(uint32_t slot, uint32_t byte_len) const {
  const uint8_t* base = buffer_.get() + size_t{slot} * SlotBytes();
  if (byte_len <= kGrhBytes) return {};
  const size_t n = std::min<size_t>(byte_len - kGrhBytes, capacity_);
  return {base + kGrhBytes, n};
}

std::optional<ProbeFailure> Endpoint::RepostRecv(uint32_t slot) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(buffer_.get() + size_t{slot} * SlotBytes());
  sge.length = static_cast<uint32_t>(SlotBytes());  // GRH area + message
  sge.lkey = mr_->lkey;
  ibv_recv_wr wr{};
  wr.wr_id = kRecvFlag | slot;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int r = ibv_post_recv(qp_.get(), &wr, &bad)) return Errno("ibv_post_recv (UD)", r);
  return std::nullopt;
}

int Endpoint::event_fd() const { return channel_->fd; }

ProbeResult<bool> Endpoint::TakeEvent() {
  ibv_cq* ev_cq = nullptr;
  void* ev_ctx = nullptr;
  if (ibv_get_cq_event(channel_.get(), &ev_cq, &ev_ctx) != 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
    return Errno("ibv_get_cq_event");
  }
  // ibv_ack_cq_events takes a mutex: ack in batches, as the man page advises.
  if (++unacked_events_ >= 64) {
    ibv_ack_cq_events(cq_.get(), unacked_events_);
    unacked_events_ = 0;
  }
  return true;
}

std::optional<ProbeFailure> Endpoint::Arm() {
  if (int r = ibv_req_notify_cq(cq_.get(), 0)) return Errno("ibv_req_notify_cq", r);
  return std::nullopt;
}

size_t Endpoint::Poll(std::vector<Completion>& out) {
  out.clear();
  std::array<ibv_wc, kPollBatch> wcs;
  const int n = ibv_poll_cq(cq_.get(), kPollBatch, wcs.data());
  if (n <= 0) return 0;
  for (int i = 0; i < n; ++i) {
    const ibv_wc& wc = wcs[static_cast<size_t>(i)];
    const bool is_send = (wc.wr_id & kRecvFlag) == 0;
    const auto slot = static_cast<uint32_t>(wc.wr_id & 0xffffffffu);
    const bool ok = wc.status == IBV_WC_SUCCESS;
    if (is_send) {
      // This send and the unsignaled ones posted before it are done (in order on the QP).
      const uint64_t tag = send_slots_->tag(slot);
      send_slots_->Complete(slot, [this](uint32_t, const Gid& to) {
        if (auto it = ahs_.find(to); it != ahs_.end() && it->second.in_flight > 0) {
          --it->second.in_flight;
        }
      });
      if (ok) continue;
      Completion& c = out.emplace_back();
      c.is_send = true;
      c.ok = false;
      c.status = ibv_wc_status_str(wc.status);
      c.slot = slot;
      c.send_tag = tag;
      continue;
    }
    Completion& c = out.emplace_back();
    c.slot = slot;
    c.ok = ok;
    if (!ok) c.status = ibv_wc_status_str(wc.status);
    c.byte_len = wc.byte_len;
    c.src_qp = wc.src_qp;
    if (ok && (wc.wc_flags & IBV_WC_GRH)) {
      c.src_gid = SourceGidFromGrh({buffer_.get() + size_t{slot} * SlotBytes(), kGrhBytes});
    }
  }
  return static_cast<size_t>(n);
}

}  // namespace rxe::probes::ud
