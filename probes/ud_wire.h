// ud_ping wire format: the payload of one UD SEND (ping or pong), after the
// 40-byte GRH area that every UD receive buffer starts with. Pure encode /
// decode over bytes, little-endian, fixed 64-byte header (the rest of a
// larger message is zero padding). See docs/protocol.md "ud_ping packets".
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace rxe::probes::ud {

inline constexpr uint32_t kMagic = 0x44555852;  // "RXUD" little-endian
inline constexpr uint8_t kVersion = 1;
inline constexpr size_t kHeaderBytes = 64;
/// UD receive buffers start with room for the 40-byte GRH (RoCE v2: the IP header).
inline constexpr size_t kGrhBytes = 40;

enum class Kind : uint8_t { kPing = 1, kPong = 2 };

struct Packet {
  Kind kind = Kind::kPing;
  uint64_t seq = 0;
  std::array<uint8_t, 16> sender_gid{};  // where a pong goes (the pinger's GID)
  uint32_t sender_qpn = 0;               // and its UD QPN
  uint32_t sender_qkey = 0;              // and its Q_Key
  uint64_t ping_send_ns = 0;             // pinger's clock; echoed in the pong, opaque to the responder
  uint64_t resp_recv_ns = 0;             // responder's clock when it polled the ping's receive completion
  uint64_t resp_send_ns = 0;             // responder's clock just before it posted the pong
};

/// Writes `p` into out[0..kHeaderBytes) and zeroes the rest; out must hold >= kHeaderBytes.
void Encode(const Packet& p, std::span<uint8_t> out);

/// Parses a payload (without the GRH). nullopt + `why` for a short buffer, wrong magic,
/// unknown version or kind.
std::optional<Packet> Decode(std::span<const uint8_t> in, std::string* why = nullptr);

}  // namespace rxe::probes::ud
