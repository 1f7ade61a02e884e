#include "probes/ud_wire.h"

#include <algorithm>
#include <cstring>

namespace rxe::probes::ud {
namespace {

template <typename T>
void Put(std::span<uint8_t> out, size_t off, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out[off + i] = static_cast<uint8_t>(v >> (8 * i));
}

template <typename T>
T Get(std::span<const uint8_t> in, size_t off) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(in[off + i]) << (8 * i));
  return v;
}

std::nullopt_t Fail(std::string* why, const char* text) {
  if (why != nullptr) *why = text;
  return std::nullopt;
}

}  // namespace

// Layout: 0 magic u32 | 4 version u8 | 5 kind u8 | 6 reserved u16 | 8 seq u64 | 16 sender GID[16]
// | 32 sender QPN u32 | 36 sender Q_Key u32 | 40 ping_send_ns | 48 resp_recv_ns | 56 resp_send_ns.
void Encode(const Packet& p, std::span<uint8_t> out) {
  std::fill(out.begin(), out.end(), uint8_t{0});
  Put<uint32_t>(out, 0, kMagic);
  out[4] = kVersion;
  out[5] = static_cast<uint8_t>(p.kind);
  Put<uint64_t>(out, 8, p.seq);
  std::memcpy(out.data() + 16, p.sender_gid.data(), p.sender_gid.size());
  Put<uint32_t>(out, 32, p.sender_qpn);
  Put<uint32_t>(out, 36, p.sender_qkey);
  Put<uint64_t>(out, 40, p.ping_send_ns);
  Put<uint64_t>(out, 48, p.resp_recv_ns);
  Put<uint64_t>(out, 56, p.resp_send_ns);
}

std::optional<Packet> Decode(std::span<const uint8_t> in, std::string* why) {
  if (in.size() < kHeaderBytes) return Fail(why, "short packet");
  if (Get<uint32_t>(in, 0) != kMagic) return Fail(why, "bad magic");
  if (in[4] != kVersion) return Fail(why, "unsupported version");
  const uint8_t kind = in[5];
  if (kind != static_cast<uint8_t>(Kind::kPing) && kind != static_cast<uint8_t>(Kind::kPong)) {
    return Fail(why, "unknown kind");
  }
  Packet p;
  p.kind = static_cast<Kind>(kind);
  p.seq = Get<uint64_t>(in, 8);
  std::memcpy(p.sender_gid.data(), in.data() + 16, p.sender_gid.size());
  p.sender_qpn = Get<uint32_t>(in, 32);
  p.sender_qkey = Get<uint32_t>(in, 36);
  p.ping_send_ns = Get<uint64_t>(in, 40);
  p.resp_recv_ns = Get<uint64_t>(in, 48);
  p.resp_send_ns = Get<uint64_t>(in, 56);
  return p;
}

std::optional<std::array<uint8_t, 16>> SourceGidFromGrh(std::span<const uint8_t> grh) {
  if (grh.size() < kGrhBytes) return std::nullopt;
  std::array<uint8_t, 16> gid{};
  // First the IPv6 header / IB GRH (version 6 in the first nibble; source GID at bytes
  // 8..23): for IPv4 the kernel zeroes the first 20 bytes (rxe: union rdma_network_hdr).
  if ((grh[0] >> 4) == 6) {
    std::copy(grh.begin() + 8, grh.begin() + 24, gid.begin());
    return gid;
  }
  const uint8_t v4 = grh[20];
  if ((v4 >> 4) == 4 && (v4 & 0x0f) == 5) {  // IPv4, 20-byte header, in the last 20 bytes
    gid[10] = 0xff;
    gid[11] = 0xff;
    std::copy(grh.begin() + 32, grh.begin() + 36, gid.begin() + 12);
    return gid;
  }
  return std::nullopt;
}

sockaddr_storage GidToSockaddr(const std::array<uint8_t, 16>& gid) {
  sockaddr_storage ss{};
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::equal(gid.begin(), gid.begin() + 12, kMapped)) {
    auto* in = reinterpret_cast<sockaddr_in*>(&ss);
    in->sin_family = AF_INET;
    std::memcpy(&in->sin_addr, gid.data() + 12, 4);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
    in6->sin6_family = AF_INET6;
    std::memcpy(&in6->sin6_addr, gid.data(), 16);
  }
  return ss;
}

}  // namespace rxe::probes::ud
