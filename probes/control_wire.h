// Big-endian byte writer/reader used by the control protocol codec. The
// reader never reads past its span: every Get* reports failure instead, and
// the caller turns that into WireErrorCode::kTruncated.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rxe::probes::control::wire {

class Writer {
 public:
  explicit Writer(std::vector<uint8_t>& out) : out_(out) {}
  void U8(uint8_t v) { out_.push_back(v); }
  void U16(uint16_t v) { Be(v, 2); }
  void U32(uint32_t v) { Be(v, 4); }
  void U64(uint64_t v) { Be(v, 8); }
  void Bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void Text(const std::string& s, size_t max) {
    size_t n = s.size() < max ? s.size() : max;  // encoder truncates, decoder rejects
    U16(static_cast<uint16_t>(n));
    out_.insert(out_.end(), s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n));
  }

 private:
  void Be(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t>& out_;
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> in) : in_(in) {}
  bool U8(uint8_t& v) {
    uint64_t x;
    if (!Be(x, 1)) return false;
    v = static_cast<uint8_t>(x);
    return true;
  }
  bool U16(uint16_t& v) {
    uint64_t x;
    if (!Be(x, 2)) return false;
    v = static_cast<uint16_t>(x);
    return true;
  }
  bool U32(uint32_t& v) {
    uint64_t x;
    if (!Be(x, 4)) return false;
    v = static_cast<uint32_t>(x);
    return true;
  }
  bool U64(uint64_t& v) { return Be(v, 8); }
  template <size_t N>
  bool Bytes(std::array<uint8_t, N>& out) {
    if (remaining() < N) return false;
    for (size_t i = 0; i < N; ++i) out[i] = in_[pos_ + i];
    pos_ += N;
    return true;
  }
  /// u16 length + bytes; false if truncated. `too_long` is set if length > max.
  bool Text(std::string& s, size_t max, bool& too_long) {
    uint16_t n = 0;
    too_long = false;
    if (!U16(n)) return false;
    if (n > max) {
      too_long = true;
      return false;
    }
    if (remaining() < n) return false;
    s.assign(reinterpret_cast<const char*>(in_.data() + pos_), n);
    pos_ += n;
    return true;
  }
  size_t remaining() const { return in_.size() - pos_; }

 private:
  bool Be(uint64_t& v, size_t n) {
    if (remaining() < n) return false;
    v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | in_[pos_ + i];
    pos_ += n;
    return true;
  }
  std::span<const uint8_t> in_;
  size_t pos_ = 0;
};

}  // namespace rxe::probes::control::wire
