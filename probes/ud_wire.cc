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

}  // namespace rxe::probes::ud
