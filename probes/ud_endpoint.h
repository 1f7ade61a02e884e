// The long-lived UD endpoint of one RDMA device for ud_ping: PD, one CQ on a
// completion channel, one registered buffer (receive slots with the 40-byte GRH
// area + send slots), one UD QP (RESET -> INIT (Q_Key) -> RTR -> RTS, as in
// rdma-core's ud_pingpong) and a cache of address handles per destination GID
// (is_global = 1: RoCE v2 needs the GRH). Created once, kept for the life of the
// daemon: pings never create QPs. Not thread-safe: one event loop owns it.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "probes/engine.h"
#include "probes/gid_select.h"
#include "probes/ud_send_slots.h"
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
  /// A send asks for a completion at least every this many sends (the others are posted
  /// unsignaled and reclaimed in order by it: probes/ud_send_slots.h).
  uint32_t signal_every = 32;
  /// Cached address handles (one per destination GID: peers pinged and pingers answered);
  /// beyond this the least recently used one without a send in flight is destroyed.
  uint32_t max_address_handles = 4096;
};

/// A polled completion, decoded for the loop: every receive, and the sends that failed
/// (successful send completions only free send slots and are not returned).
struct Completion {
  bool is_send = false;
  bool ok = true;
  std::string status;      // ibv_wc_status_str when !ok
  uint32_t slot = 0;       // receive slot (repost it with RepostRecv) or send slot (freed already)
  uint64_t send_tag = 0;   // the tag given to PostSend of the failed send
  uint32_t byte_len = 0;   // receives: bytes including the GRH
  uint32_t src_qp = 0;     // receives: the sender's QPN (from the packet's headers)
  std::optional<Gid> src_gid;  // receives: the sender's GID from the GRH (nullopt: unreadable)
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
  uint64_t address_handle_evictions() const { return ah_evictions_; }
  /// Largest payload a receive slot holds (max(1 KiB, the active MTU): any UD message the
  /// port can deliver fits, so a long packet never fails a receive and errors the QP).
  uint32_t capacity() const { return capacity_; }
  /// True once the QP is in the error state (receives are then flushed, not reposted).
  bool QpInError() const;

  /// A free send slot's payload buffer, or empty when every send slot is in flight.
  std::optional<uint32_t> AcquireSendSlot();
  /// The first message_bytes of the slot's buffer (what a send of the default length
  /// carries; PostSend zeroes what a longer send adds beyond it).
  std::span<uint8_t> SendPayload(uint32_t slot);
  /// Posts the send slot's message (`length` bytes, 0 = message_bytes, at most capacity) to
  /// `to` (address handle from the cache, created on first use). On failure the slot is
  /// released. Usually unsignaled (no completion unless it fails); `tag` comes back in the
  /// completion of a failed send.
  std::optional<ProbeFailure> PostSend(uint32_t slot, const EndpointAddress& to, uint64_t tag,
                                       uint32_t length = 0);
  /// The payload of a completed receive (after the GRH area), `byte_len` as in the completion.
  std::span<const uint8_t> RecvPayload(uint32_t slot, uint32_t byte_len) const;
  std::optional<ProbeFailure> RepostRecv(uint32_t slot);

  /// The completion channel's fd (readable once an event of Arm() fired).
  int event_fd() const;
  /// Reads one pending channel event, non-blocking (acknowledged in batches): true if there
  /// was one. An arm fires at most one event (on the first completion added after it).
  ProbeResult<bool> TakeEvent();
  /// Asks for an event on the next completion (ibv_req_notify_cq). Completions already in the
  /// CQ fire none: poll again after arming.
  std::optional<ProbeFailure> Arm();
  static constexpr int kPollBatch = 32;
  /// Polls up to kPollBatch completions (non-blocking) into `out` (cleared first); send
  /// slots are released here. Returns the number of completions polled, including the
  /// successful send completions that are not put in `out`.
  size_t Poll(std::vector<Completion>& out);
  /// Drops the cached address handle of `gid` (the peer moved or restarted).
  void ForgetAddress(const Gid& gid);

 private:
  Endpoint() = default;
  std::optional<ProbeFailure> Build();
  ibv_ah* AddressHandle(const Gid& gid);
  size_t SlotBytes() const { return size_t{capacity_} + 40; }
  void EvictAddressHandles();

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
  struct CachedAh {
    AhPtr ah;
    uint32_t in_flight = 0;  // sends posted with it and not completed
    std::list<Gid>::iterator lru;
  };
  std::map<Gid, CachedAh> ahs_;
  std::list<Gid> lru_;  // most recently used first
  uint64_t ah_evictions_ = 0;
  uint32_t capacity_ = 0;
  std::optional<SendSlots> send_slots_;
  unsigned unacked_events_ = 0;
};

}  // namespace rxe::probes::ud
