#include "probes/control_protocol.h"

#include <algorithm>

#include "probes/control_wire.h"

namespace rxe::probes::control {
namespace {

template <typename... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <typename... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

WireError Err(WireErrorCode c, std::string detail) { return WireError{c, std::move(detail)}; }
WireError Truncated(std::string_view what) {
  return Err(WireErrorCode::kTruncated, "truncated " + std::string(what));
}
WireError Range(std::string_view field, uint64_t v) {
  return Err(WireErrorCode::kOutOfRange, std::string(field) + " out of range: " + std::to_string(v));
}

uint8_t ProbeTypeCode(config::ProbeType t) {
  switch (t) {
    case config::ProbeType::kWriteBw: return 0;
    case config::ProbeType::kSendBw: return 1;
    case config::ProbeType::kSendLat: return 2;
    case config::ProbeType::kWriteLat: return 3;
    case config::ProbeType::kUdPing: return 4;
  }
  return 0;
}

bool ProbeTypeFromCode(uint8_t c, config::ProbeType& t) {
  static constexpr config::ProbeType kTypes[] = {
      config::ProbeType::kWriteBw, config::ProbeType::kSendBw, config::ProbeType::kSendLat,
      config::ProbeType::kWriteLat, config::ProbeType::kUdPing};
  if (c >= std::size(kTypes)) return false;
  t = kTypes[c];
  return true;
}

void EncodeParams(wire::Writer& w, const SessionParams& p) {
  w.U8(ProbeTypeCode(p.type));
  w.U32(p.size);
  w.U32(p.qps);
  w.U32(p.post_list);
  w.U32(p.cq_moderation);
  w.U32(p.tx_depth);
  w.U32(p.inline_size);
  w.U32(p.iterations);
  auto ms = p.duration.count();
  w.U32(static_cast<uint32_t>(std::clamp<int64_t>(ms, 0, UINT32_MAX)));
  w.U32(p.mtu);
  uint8_t options = p.use_event ? kHelloOptionUseEvent : 0;
  if (p.qp_timeout != kDefaultQpTimeout) options |= kHelloOptionQpTimeout;
  if (options != 0) w.U8(options);
  if ((options & kHelloOptionQpTimeout) != 0) w.U8(p.qp_timeout);
}

void EncodeInto(std::vector<uint8_t>& out, const Message& m) {
  wire::Writer w(out);
  std::visit(Overloaded{
                 [&](const Hello& h) {
                   w.Bytes(h.client_nonce);
                   EncodeParams(w, h.params);
                 },
                 [&](const Challenge& c) {
                   w.Bytes(c.responder_nonce);
                   w.Bytes(c.responder_proof);
                 },
                 [&](const Auth& a) { w.Bytes(a.client_proof); },
                 [&](const Accept& a) { w.U64(a.session_id); },
                 [&](const Reject& r) {
                   w.U8(static_cast<uint8_t>(r.reason));
                   w.Text(r.text, kMaxTextBytes);
                 },
                 [&](const Endpoint& e) {
                   w.Bytes(e.info.gid);
                   w.U64(e.info.addr);
                   w.U32(e.info.rkey);
                   w.U32(e.info.buffer_bytes);
                   w.U32(e.info.active_mtu);
                   w.U16(static_cast<uint16_t>(std::min<size_t>(e.info.qps.size(), UINT16_MAX)));
                   for (const auto& q : e.info.qps) {
                     w.U32(q.qpn);
                     w.U32(q.psn);
                   }
                 },
                 [&](const Ready&) {},
                 [&](const Done& d) {
                   w.U8(d.ok ? 0 : 1);
                   w.U64(d.bytes);
                   w.U64(d.messages);
                   w.Text(d.text, kMaxTextBytes);
                 },
                 [&](const Bye&) {},
                 [&](const UdAddress& u) {
                   w.Bytes(u.gid);
                   w.U32(u.qpn);
                   w.U32(u.qkey);
                 },
             },
             m);
}

WireResult<Message> DecodeHello(wire::Reader& r) {
  Hello h;
  SessionParams& p = h.params;
  uint8_t type = 0;
  uint32_t duration_ms = 0;
  if (!r.Bytes(h.client_nonce) || !r.U8(type) || !r.U32(p.size) || !r.U32(p.qps) ||
      !r.U32(p.post_list) || !r.U32(p.cq_moderation) || !r.U32(p.tx_depth) ||
      !r.U32(p.inline_size) || !r.U32(p.iterations) || !r.U32(duration_ms) || !r.U32(p.mtu)) {
    return Truncated("HELLO");
  }
  if (!ProbeTypeFromCode(type, p.type)) return Range("probe type", type);
  if (p.size == 0 || p.size > kMaxProbeSize) return Range("size", p.size);
  if (p.qps == 0 || p.qps > kMaxQps) return Range("qps", p.qps);
  if (p.post_list == 0 || p.post_list > kMaxPostList) return Range("post_list", p.post_list);
  if (p.cq_moderation == 0 || p.cq_moderation > kMaxCqModeration) {
    return Range("cq_moderation", p.cq_moderation);
  }
  if (p.tx_depth == 0 || p.tx_depth > kMaxTxDepth) return Range("tx_depth", p.tx_depth);
  if (p.inline_size > kMaxInline) return Range("inline_size", p.inline_size);
  if (p.iterations == 0 || p.iterations > kMaxIterations) return Range("iterations", p.iterations);
  if (duration_ms == 0 || duration_ms > kMaxDurationMs) return Range("duration_ms", duration_ms);
  if (p.mtu != 0 && !IsIbMtu(p.mtu)) return Range("mtu", p.mtu);
  if (r.remaining() > 0) {  // the optional options byte
    uint8_t options = 0;
    (void)r.U8(options);
    if (options == 0 || (options & ~kKnownHelloOptions) != 0) {
      return Range("HELLO options", options);
    }
    p.use_event = (options & kHelloOptionUseEvent) != 0;
    if ((options & kHelloOptionQpTimeout) != 0) {
      if (!r.U8(p.qp_timeout)) return Truncated("HELLO qp_timeout");
      // One encoding per message: the default is never sent.
      if (p.qp_timeout > kMaxQpTimeout || p.qp_timeout == kDefaultQpTimeout) {
        return Range("qp_timeout", p.qp_timeout);
      }
    }
  }
  p.duration = std::chrono::milliseconds(duration_ms);
  return Message{std::move(h)};
}

WireResult<Message> DecodeText(wire::Reader& r, std::string& text, std::string_view what) {
  bool too_long = false;
  if (!r.Text(text, kMaxTextBytes, too_long)) {
    if (too_long) return Err(WireErrorCode::kOutOfRange, std::string(what) + " text too long");
    return Truncated(what);
  }
  return Message{Bye{}};  // placeholder "ok"
}

WireResult<Message> DecodeEndpoint(wire::Reader& r) {
  Endpoint e;
  EndpointInfo& i = e.info;
  uint16_t n = 0;
  if (!r.Bytes(i.gid) || !r.U64(i.addr) || !r.U32(i.rkey) || !r.U32(i.buffer_bytes) ||
      !r.U32(i.active_mtu) || !r.U16(n)) {
    return Truncated("ENDPOINT");
  }
  if (!IsIbMtu(i.active_mtu)) return Range("active_mtu", i.active_mtu);
  if (n == 0 || n > kMaxQps) return Range("qp count", n);
  // Check the declared count against the bytes present before allocating.
  if (r.remaining() < size_t{n} * 8) return Truncated("ENDPOINT qp list");
  i.qps.resize(n);
  for (auto& q : i.qps) {
    if (!r.U32(q.qpn) || !r.U32(q.psn)) return Truncated("ENDPOINT qp list");
    if (q.qpn == 0 || q.qpn > kMaxQpNumber) return Range("qpn", q.qpn);
    if (q.psn > kMaxQpNumber) return Range("psn", q.psn);
  }
  return Message{std::move(e)};
}

WireResult<Message> DecodeBodyImpl(MessageType type, wire::Reader& r) {
  switch (type) {
    case MessageType::kHello: return DecodeHello(r);
    case MessageType::kChallenge: {
      Challenge c;
      if (!r.Bytes(c.responder_nonce) || !r.Bytes(c.responder_proof)) {
        return Truncated("CHALLENGE");
      }
      return Message{c};
    }
    case MessageType::kAuth: {
      Auth a;
      if (!r.Bytes(a.client_proof)) return Truncated("AUTH");
      return Message{a};
    }
    case MessageType::kAccept: {
      Accept a;
      if (!r.U64(a.session_id)) return Truncated("ACCEPT");
      return Message{a};
    }
    case MessageType::kReject: {
      Reject rej;
      uint8_t reason = 0;
      if (!r.U8(reason)) return Truncated("REJECT");
      if (reason < 1 || reason > static_cast<uint8_t>(RejectReason::kTimeout)) {
        return Range("reject reason", reason);
      }
      rej.reason = static_cast<RejectReason>(reason);
      auto t = DecodeText(r, rej.text, "REJECT");
      if (auto* e = std::get_if<WireError>(&t)) return *e;
      return Message{std::move(rej)};
    }
    case MessageType::kEndpoint: return DecodeEndpoint(r);
    case MessageType::kReady: return Message{Ready{}};
    case MessageType::kDone: {
      Done d;
      uint8_t status = 0;
      if (!r.U8(status) || !r.U64(d.bytes) || !r.U64(d.messages)) return Truncated("DONE");
      if (status > 1) return Range("DONE status", status);
      d.ok = status == 0;
      auto t = DecodeText(r, d.text, "DONE");
      if (auto* e = std::get_if<WireError>(&t)) return *e;
      return Message{std::move(d)};
    }
    case MessageType::kBye: return Message{Bye{}};
    case MessageType::kUdAddress: {
      UdAddress u;
      if (!r.Bytes(u.gid) || !r.U32(u.qpn) || !r.U32(u.qkey)) return Truncated("UD_ADDRESS");
      if (u.qpn == 0 || u.qpn > kMaxQpNumber) return Range("qpn", u.qpn);
      return Message{u};
    }
  }
  return Err(WireErrorCode::kUnknownType, "unknown message type");
}

bool KnownType(uint8_t t) {
  return t >= static_cast<uint8_t>(MessageType::kHello) && t <= static_cast<uint8_t>(MessageType::kUdAddress);
}

}  // namespace

std::vector<uint8_t> EncodeBody(const Message& m) {
  std::vector<uint8_t> out;
  EncodeInto(out, m);
  return out;
}

std::vector<uint8_t> Encode(const Message& m) {
  std::vector<uint8_t> out;
  out.reserve(64);
  wire::Writer w(out);
  w.Bytes(kMagic);
  w.U8(kVersion);
  w.U8(static_cast<uint8_t>(TypeOf(m)));
  w.U16(0);
  w.U32(0);  // length, patched below
  EncodeInto(out, m);
  uint32_t len = static_cast<uint32_t>(out.size() - kHeaderBytes);
  for (int i = 0; i < 4; ++i) out[8 + i] = static_cast<uint8_t>(len >> (8 * (3 - i)));
  return out;
}

WireResult<Header> DecodeHeader(std::span<const uint8_t> bytes, uint32_t max_body) {
  if (bytes.size() < kHeaderBytes) return Truncated("header");
  wire::Reader r(bytes.first(kHeaderBytes));
  std::array<uint8_t, 4> magic{};
  Header h;
  uint8_t type = 0;
  uint16_t flags = 0;
  (void)(r.Bytes(magic) && r.U8(h.version) && r.U8(type) && r.U16(flags) && r.U32(h.length));
  if (magic != kMagic) return Err(WireErrorCode::kBadMagic, "bad magic");
  if (h.version != kVersion) {
    return Err(WireErrorCode::kBadVersion, "unsupported version " + std::to_string(h.version) +
                                               " (this build speaks " + std::to_string(kVersion) + ")");
  }
  if (!KnownType(type)) return Err(WireErrorCode::kUnknownType, "unknown type " + std::to_string(type));
  if (flags != 0) return Err(WireErrorCode::kReservedNonZero, "reserved flags set");
  if (h.length > max_body) {
    return Err(WireErrorCode::kOversized, "message length " + std::to_string(h.length) +
                                              " above maximum " + std::to_string(max_body));
  }
  h.type = static_cast<MessageType>(type);
  return h;
}

WireResult<Message> DecodeBody(MessageType type, std::span<const uint8_t> body) {
  wire::Reader r(body);
  auto m = DecodeBodyImpl(type, r);
  if (std::holds_alternative<WireError>(m)) return m;
  if (r.remaining() != 0) {
    return Err(WireErrorCode::kTrailingBytes,
               std::to_string(r.remaining()) + " trailing bytes after " +
                   std::string(MessageTypeName(type)));
  }
  return m;
}

WireResult<Message> DecodeFrame(std::span<const uint8_t> bytes, uint32_t max_body) {
  auto h = DecodeHeader(bytes, max_body);
  if (auto* e = std::get_if<WireError>(&h)) return *e;
  const Header& hdr = std::get<Header>(h);
  size_t have = bytes.size() - kHeaderBytes;
  if (have < hdr.length) return Truncated("body");
  if (have > hdr.length) {
    return Err(WireErrorCode::kTrailingBytes, std::to_string(have - hdr.length) +
                                                  " trailing bytes after frame");
  }
  return DecodeBody(hdr.type, bytes.subspan(kHeaderBytes, hdr.length));
}

}  // namespace rxe::probes::control
