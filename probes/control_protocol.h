// The probe control protocol (TCP, default port 19792): typed messages and
// pure encode/decode functions (bytes <-> structs). No I/O here; see
// control_io.h for sockets and docs/protocol.md for the wire format.
//
// Every frame is a 12-byte header followed by `length` body bytes:
//   magic "RXEP" | version u8 | type u8 | flags u16 (0) | length u32   (big endian)
// Decoding never trusts the peer: every length is bounded before anything is
// read or allocated, every field is range-checked and trailing bytes are an
// error. Nothing here throws or aborts on any input.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "probes/engine.h"

namespace rxe::probes::control {

inline constexpr std::array<uint8_t, 4> kMagic{'R', 'X', 'E', 'P'};
inline constexpr uint8_t kVersion = 1;
inline constexpr size_t kHeaderBytes = 12;
inline constexpr uint32_t kDefaultMaxMessageBytes = 4096;
inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kProofBytes = 32;  // HMAC-SHA256
inline constexpr size_t kMaxTextBytes = 256;

// Field bounds enforced by the decoder (policy limits such as the buffer cap
// are the responder's job and give REJECT bad_params).
inline constexpr uint32_t kMaxQps = 64;
inline constexpr uint32_t kMaxProbeSize = 8u << 20;  // rxe max_msg_sz on 6.1
inline constexpr uint32_t kMaxPostList = 1024;
inline constexpr uint32_t kMaxCqModeration = 1024;
inline constexpr uint32_t kMaxTxDepth = 8192;
inline constexpr uint32_t kMaxInline = 512;  // RXE_MAX_INLINE_DATA
inline constexpr uint32_t kMaxIterations = 1'000'000;
inline constexpr uint32_t kMaxDurationMs = 600'000;
inline constexpr uint32_t kMaxQpNumber = 0xFFFFFF;  // QPN and PSN are 24-bit

/// HELLO's optional last byte: option bits, sent only when one is set, so a HELLO without
/// options is byte-for-byte what builds before it send and accept. Unknown bits and a present
/// but zero byte are out_of_range (one encoding per message; a responder that does not know an
/// option refuses it instead of ignoring it).
/// Bit 1 says one more byte follows: the prober's qp_timeout (0..31), set only when it is not the
/// default 14, so the responder's QPs retransmit on the same timer as the prober's (perftest -u
/// on both sides) instead of ~67 ms on a path whose RTT is longer.
inline constexpr uint8_t kHelloOptionUseEvent = 0x01;   // SessionParams::use_event (perftest -e)
inline constexpr uint8_t kHelloOptionQpTimeout = 0x02;  // + u8 SessionParams::qp_timeout
inline constexpr uint8_t kKnownHelloOptions = kHelloOptionUseEvent | kHelloOptionQpTimeout;
inline constexpr uint8_t kDefaultQpTimeout = 14;
inline constexpr uint8_t kMaxQpTimeout = 31;  // 5 bits (IBTA)

enum class MessageType : uint8_t {
  kHello = 1,
  kChallenge = 2,
  kAuth = 3,
  kAccept = 4,
  kReject = 5,
  kEndpoint = 6,
  kReady = 7,
  kDone = 8,
  kBye = 9,
  kUdAddress = 10,  // responder -> client after ACCEPT for a ud_ping HELLO, then the connection ends
};

/// Why a REJECT was sent; also the `reason` label of
/// rxe_responder_rejections_total (kTimeout included).
enum class RejectReason : uint8_t {
  kNotAllowed = 1,
  kAuthFailed = 2,
  kBusy = 3,
  kMalformed = 4,
  kOversized = 5,
  kBadVersion = 6,
  kBadParams = 7,
  kSetupFailed = 8,
  kTimeout = 9,  // counted only (an idle client gets no REJECT, it is dropped)
};
inline constexpr RejectReason kAllRejectReasons[] = {
    RejectReason::kNotAllowed, RejectReason::kAuthFailed, RejectReason::kBusy,
    RejectReason::kMalformed,  RejectReason::kOversized,  RejectReason::kBadVersion,
    RejectReason::kBadParams,  RejectReason::kSetupFailed, RejectReason::kTimeout};
std::string_view RejectReasonName(RejectReason r);  // "not_allowed", ...

using Nonce = std::array<uint8_t, kNonceBytes>;
using Proof = std::array<uint8_t, kProofBytes>;

struct Hello {
  Nonce client_nonce{};
  SessionParams params;
};
struct Challenge {
  Nonce responder_nonce{};
  Proof responder_proof{};  // the responder proves it knows the key first
};
struct Auth {
  Proof client_proof{};
};
struct Accept {
  uint64_t session_id = 0;  // for log correlation only
};
struct Reject {
  RejectReason reason = RejectReason::kMalformed;
  std::string text;  // <= kMaxTextBytes
};
struct Endpoint {
  EndpointInfo info;
};
struct Ready {};
/// Sent by the client when it finished, answered by the responder with its own.
struct Done {
  bool ok = true;
  uint64_t bytes = 0;     // 0 = not reported
  uint64_t messages = 0;  // 0 = not reported
  std::string text;       // failure detail, <= kMaxTextBytes
};
struct Bye {};
/// The responder's long-lived ud_ping UD endpoint (probes/ud_endpoint.h) for the device that
/// holds the control connection's local address.
struct UdAddress {
  std::array<uint8_t, 16> gid{};
  uint32_t qpn = 0;   // 1..0xFFFFFF
  uint32_t qkey = 0;
};

using Message =
    std::variant<Hello, Challenge, Auth, Accept, Reject, Endpoint, Ready, Done, Bye, UdAddress>;
MessageType TypeOf(const Message& m);
std::string_view MessageTypeName(MessageType t);

enum class WireErrorCode {
  kTruncated,       // fewer bytes than the header/body/field needs
  kOversized,       // header length above the configured maximum
  kBadMagic,        // not "RXEP"
  kBadVersion,      // a version this build does not speak
  kUnknownType,     // type byte not in MessageType
  kReservedNonZero, // header flags must be 0
  kOutOfRange,      // a field outside its documented range
  kTrailingBytes,   // body longer than the message needs
};
std::string_view WireErrorName(WireErrorCode c);

struct WireError {
  WireErrorCode code = WireErrorCode::kTruncated;
  std::string detail;
};

template <typename T>
using WireResult = std::variant<T, WireError>;

struct Header {
  uint8_t version = kVersion;
  MessageType type = MessageType::kBye;
  uint32_t length = 0;  // body bytes
};

/// Encodes one full frame (header + body).
std::vector<uint8_t> Encode(const Message& m);
/// Encodes only the body of `m` (what the header's length counts).
std::vector<uint8_t> EncodeBody(const Message& m);

/// Decodes and checks a header (exactly kHeaderBytes or more; only the first
/// kHeaderBytes are looked at). `max_body` bounds `length` before any body is read.
WireResult<Header> DecodeHeader(std::span<const uint8_t> bytes, uint32_t max_body);
/// Decodes a body of the given type (the whole span must be consumed).
WireResult<Message> DecodeBody(MessageType type, std::span<const uint8_t> body);
/// Decodes exactly one frame occupying all of `bytes`.
WireResult<Message> DecodeFrame(std::span<const uint8_t> bytes, uint32_t max_body);

/// True if `mtu` is one of 256, 512, 1024, 2048, 4096.
bool IsIbMtu(uint32_t mtu);

}  // namespace rxe::probes::control
