// The long-lived UD endpoint of one RDMA device for ud_ping: PD, one CQ on a
// completion channel, one registered buffer (receive slots with the 40-byte GRH
// area + send slots), one UD QP (RESET -> INIT (Q_Key) -> RTR -> RTS, as in
// rdma-core's ud_pingpong) and a cache of address handles per destination GID
// (is_global = 1: RoCE v2 needs the GRH). Created once, kept for the life of the
// daemon: pings never create QPs. Not thread-safe: one event loop owns it.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "probes/engine.h"
#include "probes/gid_select.h"
#include "probes/verbs_raii.h"

namespace rxe::probes::ud {

struct AhDeleter {
  void operator()(ibv_ah* ah) const noexcept;
};
using AhPtr = std::unique_ptr<ibv_ah, AhDeleter>;

/// What a peer needs to ping this endpoint (exchanged over the control protocol).
struct EndpointAddress {
  Gid gid{};
  uint32_t qpn = 0;
  uint32_t qkey = 0;
};

struct EndpointOptions {
  uint32_t qkey = 0x11111111;
  uint32_t message_bytes = 64;  // payload of each ping/pong (>= ud::kHeaderBytes, <= active MTU)
  uint32_t recv_slots = 256;
  uint32_t send_slots = 128;
};

/// A polled completion, decoded for the loop.
struct Completion {
  bool is_send = false;
  bool ok = true;
  std::string status;      // ibv_wc_status_str when !ok
  uint32_t slot = 0;       // receive slot (repost it with RepostRecv) or send slot (freed already)
  uint64_t send_tag = 0;   // the tag given to PostSend
  uint32_t byte_len = 0;   // receives: bytes including the GRH
  uint32_t src_qp = 0;     // receives
};

class Endpoint {
 public:
  /// Opens the device/port/GID of `where` (as the RC probes do) and builds everything.
  static ProbeResult<std::unique_ptr<Endpoint>> Create(const LocalTarget& where,
                                                      const EndpointOptions& opts);
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  EndpointAddress Address() const;
  const std::string& device() const { return device_; }
  uint32_t gid_index() const { return gid_index_; }
  uint32_t message_bytes() const { return opts_.message_bytes; }
  size_t cached_address_handles() const { return ahs_.size(); }

  /// A free send slot's payload buffer, or empty when every send slot is in flight.
  std::optional<uint32_t> AcquireSendSlot();
  std::span<uint8_t> SendPayload(uint32_t slot);
  /// Posts the send slot's message to `to` (address handle from the cache, created on
  /// first use). On failure the slot is released. `tag` comes back in its completion.
  std::optional<ProbeFailure> PostSend(uint32_t slot, const EndpointAddress& to, uint64_t tag);
  /// The payload of a completed receive (after the GRH area), `byte_len` as in the completion.
  std::span<const uint8_t> RecvPayload(uint32_t slot, uint32_t byte_len) const;
  std::optional<ProbeFailure> RepostRecv(uint32_t slot);

  /// The completion channel's fd (readable when ArmNotify()'s event fired).
  int event_fd() const;
  /// Consumes a pending channel event (call when event_fd is readable) and re-arms.
  std::optional<ProbeFailure> AckEventAndRearm();
  static constexpr int kPollBatch = 32;
  /// Polls up to kPollBatch completions (non-blocking); send slots are released here.
  std::vector<Completion> Poll();
  /// Drops the cached address handle of `gid` (the peer moved or restarted).
  void ForgetAddress(const Gid& gid) { ahs_.erase(gid); }

 private:
  Endpoint() = default;
  std::optional<ProbeFailure> Build();
  ibv_ah* AddressHandle(const Gid& gid);
  size_t SlotBytes() const { return opts_.message_bytes + 40; }

  EndpointOptions opts_;
  std::string device_;
  uint8_t port_ = 1;
  uint32_t gid_index_ = 0;
  Gid gid_{};
  uint32_t active_mtu_bytes_ = 0;
  // Declaration order = reverse destruction order: QP and AHs before the PD, CQ before the channel.
  verbs::ContextPtr ctx_;
  verbs::PdPtr pd_;
  verbs::CompChannelPtr channel_;
  verbs::CqPtr cq_;
  verbs::BufferPtr buffer_;
  verbs::MrPtr mr_;
  verbs::QpPtr qp_;
  std::map<Gid, AhPtr> ahs_;
  std::vector<uint32_t> free_send_slots_;
  std::vector<uint64_t> send_tags_;
  unsigned unacked_events_ = 0;
};

}  // namespace rxe::probes::ud
