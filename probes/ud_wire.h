// ud_ping wire format: the payload of one UD SEND (ping or pong), after the
// 40-byte GRH area that every UD receive buffer starts with. Pure encode /
// decode over bytes, little-endian, fixed 64-byte header (the rest of a
// larger message is zero padding). See docs/protocol.md "ud_ping packets".
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

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
  // The sender's address as it claims it: informational only. Pongs go to the packet's real
  // source (GRH source GID, the completion's source QPN), never to these.
  std::array<uint8_t, 16> sender_gid{};
  uint32_t sender_qpn = 0;
  uint32_t sender_qkey = 0;
  uint64_t ping_send_ns = 0;             // pinger's clock; echoed in the pong, opaque to the responder
  uint64_t resp_recv_ns = 0;             // responder's clock when it polled the ping's receive completion
  uint64_t resp_send_ns = 0;             // responder's clock just before it posted the pong
};

/// Writes `p` into out[0..kHeaderBytes) and zeroes the rest; out must hold >= kHeaderBytes.
void Encode(const Packet& p, std::span<uint8_t> out);

/// The source GID of a received UD packet from the 40-byte GRH area of its receive buffer
/// (RoCE v2 over IPv4: bytes 20..39 hold the IPv4 header, the source is the IPv4-mapped GID
/// of its source address; over IPv6 or RoCE v1: a GRH/IPv6 header, source at bytes 8..23).
/// nullopt when neither header is recognisable. The GRH is written by the receiving NIC
/// from the packet's headers, so unlike the payload it cannot claim another sender.
std::optional<std::array<uint8_t, 16>> SourceGidFromGrh(std::span<const uint8_t> grh);

/// `gid` as a socket address for the responder's ACL: IPv4-mapped GIDs become AF_INET.
sockaddr_storage GidToSockaddr(const std::array<uint8_t, 16>& gid);

/// Parses a payload (without the GRH). nullopt + `why` for a short buffer, wrong magic,
/// unknown version or kind.
std::optional<Packet> Decode(std::span<const uint8_t> in, std::string* why = nullptr);

}  // namespace rxe::probes::ud
