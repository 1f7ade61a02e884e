#include "probes/responder_acl.h"

#include <arpa/inet.h>
#include <netdb.h>

#include <charconv>
#include <cstring>
#include <memory>

#include "common/log.h"

namespace rxe::probes {
namespace {

Error Invalid(const std::string& msg) { return Error::Make(ErrorCode::kInvalidArgument, msg); }

bool ParseIp(const std::string& s, int& family, std::array<uint8_t, 16>& addr) {
  addr.fill(0);
  in_addr v4{};
  if (::inet_pton(AF_INET, s.c_str(), &v4) == 1) {
    family = AF_INET;
    std::memcpy(addr.data(), &v4, 4);
    return true;
  }
  in6_addr v6{};
  if (::inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_V4MAPPED(&v6)) {
      family = AF_INET;
      std::memcpy(addr.data(), v6.s6_addr + 12, 4);
    } else {
      family = AF_INET6;
      std::memcpy(addr.data(), v6.s6_addr, 16);
    }
    return true;
  }
  return false;
}

bool PrefixMatches(const std::array<uint8_t, 16>& a, const std::array<uint8_t, 16>& b, int bits) {
  int full = bits / 8;
  if (std::memcmp(a.data(), b.data(), static_cast<size_t>(full)) != 0) return false;
  int rest = bits % 8;
  if (rest == 0) return true;
  uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (a[static_cast<size_t>(full)] & mask) == (b[static_cast<size_t>(full)] & mask);
}

bool ParsePort(std::string_view s, uint16_t& port) {
  unsigned v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v > 65535) return false;
  port = static_cast<uint16_t>(v);
  return true;
}

}  // namespace

Result<Cidr> ParseCidr(const std::string& text) {
  Cidr c;
  std::string ip = text;
  int len = -1;
  if (auto slash = text.find('/'); slash != std::string::npos) {
    ip = text.substr(0, slash);
    std::string_view bits(text.data() + slash + 1, text.size() - slash - 1);
    auto [p, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), len);
    if (bits.empty() || ec != std::errc() || p != bits.data() + bits.size() || len < 0) {
      return Invalid("invalid CIDR \"" + text + "\": bad prefix length");
    }
  }
  if (!ParseIp(ip, c.family, c.addr)) return Invalid("invalid CIDR \"" + text + "\": bad address");
  int max = c.family == AF_INET ? 32 : 128;
  if (len < 0) len = max;
  if (len > max) return Invalid("invalid CIDR \"" + text + "\": prefix longer than " + std::to_string(max));
  c.prefix_len = len;
  std::array<uint8_t, 16> masked{};
  for (int i = 0; i < len / 8; ++i) masked[static_cast<size_t>(i)] = c.addr[static_cast<size_t>(i)];
  if (len % 8 != 0) {
    size_t i = static_cast<size_t>(len / 8);
    masked[i] = static_cast<uint8_t>(c.addr[i] & (0xff << (8 - len % 8)));
  }
  if (masked != c.addr) return Invalid("invalid CIDR \"" + text + "\": host bits set");
  return c;
}

bool NormalizeAddress(const sockaddr_storage& ss, int& family, std::array<uint8_t, 16>& addr) {
  addr.fill(0);
  if (ss.ss_family == AF_INET) {
    family = AF_INET;
    std::memcpy(addr.data(), &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, 4);
    return true;
  }
  if (ss.ss_family == AF_INET6) {
    const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
      family = AF_INET;
      std::memcpy(addr.data(), a.s6_addr + 12, 4);
    } else {
      family = AF_INET6;
      std::memcpy(addr.data(), a.s6_addr, 16);
    }
    return true;
  }
  return false;
}

Result<SourceAcl> SourceAcl::Make(const std::vector<std::string>& allowed_cidrs,
                                  const std::vector<std::string>& peer_ips) {
  SourceAcl acl;
  for (const auto& s : allowed_cidrs) {
    auto c = ParseCidr(s);
    if (!c.ok()) return c.error().Wrap("responder.allowed_cidrs");
    acl.entries_.push_back(*c);
  }
  for (const auto& ip : peer_ips) {
    auto c = ParseCidr(ip);
    if (c.ok()) acl.entries_.push_back(*c);
  }
  return acl;
}

bool SourceAcl::Allows(const sockaddr_storage& source) const {
  int family = 0;
  std::array<uint8_t, 16> addr{};
  if (!NormalizeAddress(source, family, addr)) return false;
  for (const auto& e : entries_) {
    if (e.family == family && PrefixMatches(e.addr, addr, e.prefix_len)) return true;
  }
  return false;
}

std::vector<std::string> ResolvePeerAddresses(const std::vector<config::Peer>& peers) {
  std::vector<std::string> out;
  for (const auto& p : peers) {
    int family = 0;
    std::array<uint8_t, 16> addr{};
    if (ParseIp(p.address, family, addr)) {
      out.push_back(p.address);
      continue;
    }
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (int rc = ::getaddrinfo(p.address.c_str(), nullptr, &hints, &res); rc != 0) {
      log::Warn("cannot resolve peer address for the responder allow list",
                {{"peer", p.name}, {"address", p.address}, {"err", ::gai_strerror(rc)}});
      continue;
    }
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owner(res, &::freeaddrinfo);
    for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
      char buf[INET6_ADDRSTRLEN] = {0};
      const void* src = ai->ai_family == AF_INET
                            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(ai->ai_addr)->sin_addr)
                            : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(ai->ai_addr)->sin6_addr);
      if (::inet_ntop(ai->ai_family, src, buf, sizeof buf) != nullptr) out.emplace_back(buf);
    }
  }
  return out;
}

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  ListenAddress la;
  std::string_view port_part;
  if (!text.empty() && text[0] == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return Invalid("invalid listen address \"" + text + "\": expected [ipv6]:port");
    }
    la.host = text.substr(1, close - 1);
    port_part = std::string_view(text).substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos) {
      return Invalid("invalid listen address \"" + text + "\": expected host:port or :port");
    }
    la.host = text.substr(0, colon);
    if (la.host.find(':') != std::string::npos) {
      return Invalid("invalid listen address \"" + text + "\": put IPv6 addresses in brackets");
    }
    port_part = std::string_view(text).substr(colon + 1);
  }
  if (!ParsePort(port_part, la.port)) {
    return Invalid("invalid listen address \"" + text + "\": bad port");
  }
  if (!la.host.empty()) {
    int family = 0;
    std::array<uint8_t, 16> addr{};
    if (!ParseIp(la.host, family, addr)) {
      return Invalid("invalid listen address \"" + text + "\": host must be an IP address");
    }
  }
  return la;
}

}  // namespace rxe::probes
