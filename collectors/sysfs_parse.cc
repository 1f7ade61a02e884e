#include "collectors/sysfs_parse.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <limits>

namespace rxe::collectors {
namespace {

constexpr uint64_t kBytesPerGigabit = 125'000'000;  // 1e9 bits / 8

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Error Invalid(std::string_view what, std::string_view text) {
  std::string msg(what);
  msg += ": unexpected format \"";
  msg.append(text.substr(0, 64));
  msg += '"';
  return Error::Make(ErrorCode::kInvalidArgument, std::move(msg));
}

// Parses a non-empty run of decimal digits that fills `digits` entirely.
template <typename T>
bool ParseDecimal(std::string_view digits, T& out) {
  if (digits.empty() || !IsDigit(digits.front())) return false;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, out, 10);
  return ec == std::errc() && ptr == end;
}

// "%u: %s" (state, phys_state, node_type).
Result<NumberedName> ParseNumberedName(std::string_view what, std::string_view text) {
  const std::string_view v = TrimSysfsValue(text);
  const size_t colon = v.find(':');
  if (colon == std::string_view::npos) return Invalid(what, v);
  NumberedName out;
  if (!ParseDecimal(v.substr(0, colon), out.number)) return Invalid(what, v);
  std::string_view name = v.substr(colon + 1);
  if (name.empty() || name.front() != ' ') return Invalid(what, v);
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  if (name.empty()) return Invalid(what, v);
  out.name = std::string(name);
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string_view TrimSysfsValue(std::string_view text) {
  while (!text.empty() &&
         (text.back() == '\n' || text.back() == ' ' || text.back() == '\t' || text.back() == '\0')) {
    text.remove_suffix(1);
  }
  return text;
}

Result<NumberedName> ParseState(std::string_view text) {
  return ParseNumberedName("port state", text);
}

Result<NumberedName> ParsePhysState(std::string_view text) {
  return ParseNumberedName("port phys_state", text);
}

Result<NumberedName> ParseNodeType(std::string_view text) {
  return ParseNumberedName("node_type", text);
}

Result<uint64_t> ParseRate(std::string_view text) {
  // Kernel: sysfs.c rate_show, "%d%s Gb/sec (%dX%s)" where %s is "" or ".5".
  const std::string_view v = TrimSysfsValue(text);
  const size_t space = v.find(' ');
  if (space == std::string_view::npos) return Invalid("port rate", v);
  std::string_view number = v.substr(0, space);
  std::string_view rest = v.substr(space + 1);
  constexpr std::string_view kUnit = "Gb/sec";
  if (rest.substr(0, kUnit.size()) != kUnit) return Invalid("port rate", v);
  rest.remove_prefix(kUnit.size());
  // Optional " (<width>X<speed>)" suffix; anything else is malformed.
  if (!rest.empty() && (rest.size() < 4 || rest.substr(0, 2) != " (" || rest.back() != ')')) {
    return Invalid("port rate", v);
  }
  std::string_view whole = number;
  std::string_view frac;
  if (const size_t dot = number.find('.'); dot != std::string_view::npos) {
    whole = number.substr(0, dot);
    frac = number.substr(dot + 1);
    if (frac.empty() || frac.size() > 9) return Invalid("port rate", v);
  }
  uint64_t gbits = 0;
  if (!ParseDecimal(whole, gbits)) return Invalid("port rate", v);
  if (gbits > std::numeric_limits<uint64_t>::max() / kBytesPerGigabit) {
    return Invalid("port rate", v);
  }
  uint64_t bytes = gbits * kBytesPerGigabit;
  if (!frac.empty()) {
    uint64_t frac_value = 0;
    if (!ParseDecimal(frac, frac_value)) return Invalid("port rate", v);
    uint64_t scale = 1;
    for (size_t i = 0; i < frac.size(); ++i) scale *= 10;
    bytes += frac_value * kBytesPerGigabit / scale;  // < 1e9 * 1.25e8: no overflow
  }
  return bytes;
}

Result<std::optional<uint64_t>> ParseCounter(std::string_view text) {
  const std::string_view v = TrimSysfsValue(text);
  // core/sysfs.c prints this for counters/ of a device whose PMA query failed.
  if (v.starts_with("N/A")) return std::optional<uint64_t>();
  uint64_t value = 0;
  if (!ParseDecimal(v, value)) return Invalid("counter", v);
  return std::optional<uint64_t>(value);
}

bool Gid::IsZero() const {
  for (uint8_t b : raw) {
    if (b != 0) return false;
  }
  return true;
}

Result<Gid> ParseGid(std::string_view text) {
  // "%pI6": exactly 8 groups of 4 hex digits separated by ':' (39 chars).
  const std::string_view v = TrimSysfsValue(text);
  if (v.size() != 39) return Invalid("gid", v);
  Gid gid;
  for (size_t group = 0; group < 8; ++group) {
    const size_t at = group * 5;
    if (group < 7 && v[at + 4] != ':') return Invalid("gid", v);
    unsigned value = 0;
    for (size_t i = 0; i < 4; ++i) {
      const int h = HexValue(v[at + i]);
      if (h < 0) return Invalid("gid", v);
      value = value << 4 | static_cast<unsigned>(h);
    }
    gid.raw[group * 2] = static_cast<uint8_t>(value >> 8);
    gid.raw[group * 2 + 1] = static_cast<uint8_t>(value & 0xff);
  }
  // inet_ntop is a pure formatter: RFC 5952 compression, lower case, and
  // dotted-quad for IPv4-mapped GIDs (the RoCE v2 GID of an IPv4 address).
  in6_addr addr;
  static_assert(sizeof(addr.s6_addr) == 16);
  for (size_t i = 0; i < 16; ++i) addr.s6_addr[i] = gid.raw[i];
  char buf[INET6_ADDRSTRLEN];
  if (inet_ntop(AF_INET6, &addr, buf, sizeof(buf)) == nullptr) return Invalid("gid", v);
  gid.text = buf;
  return gid;
}

Result<GidType> ParseGidType(std::string_view text) {
  // core/cache.c gid_type_str[].
  const std::string_view v = TrimSysfsValue(text);
  if (v == "RoCE v2") return GidType::kRoceV2;
  if (v == "IB/RoCE v1") return GidType::kIbRoceV1;
  return Invalid("gid type", v);
}

std::string_view GidTypeName(GidType type) {
  switch (type) {
    case GidType::kIbRoceV1: return "IB/RoCE v1";
    case GidType::kRoceV2: return "RoCE v2";
  }
  return "unknown";
}

}  // namespace rxe::collectors
