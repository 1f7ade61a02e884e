#include "config/rules.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>
#include <regex>

namespace rxe::config {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), IsDigit);
}

bool IsIpv4(std::string_view s, unsigned char out[4] = nullptr) {
  unsigned char buf[4];
  std::string str(s);
  return inet_pton(AF_INET, str.c_str(), out ? out : buf) == 1;
}

bool IsIpv6(std::string_view s, unsigned char out[16] = nullptr) {
  unsigned char buf[16];
  std::string str(s);
  return inet_pton(AF_INET6, str.c_str(), out ? out : buf) == 1;
}

bool IsHostName(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  if (s.back() == '.') s.remove_suffix(1);  // fully qualified
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find('.', start);
    if (end == std::string_view::npos) end = s.size();
    const std::string_view label = s.substr(start, end - start);
    if (label.empty() || label.size() > 63) return false;
    if (label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!IsAlnum(c) && c != '-') return false;
    }
    start = end + 1;
  }
  return true;
}

const char* RegexErrorText(std::regex_constants::error_type code) {
  using namespace std::regex_constants;
  switch (code) {
    case error_collate: return "invalid collating element name";
    case error_ctype: return "invalid character class name";
    case error_escape: return "invalid escape sequence";
    case error_backref: return "invalid back reference";
    case error_brack: return "unbalanced [ ]";
    case error_paren: return "unbalanced ( )";
    case error_brace: return "unbalanced { }";
    case error_badbrace: return "invalid range in { }";
    case error_range: return "invalid character range";
    case error_space: return "expression too large";
    case error_badrepeat: return "repeat operator (*, +, ? or {) not preceded by an expression";
    case error_complexity: return "expression too complex";
    case error_stack: return "expression too complex";
    default: return "invalid expression";
  }
}

}  // namespace

bool IsValidName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return IsAlnum(c) || c == '_' || c == '.' || c == '-';
  });
}

bool IsValidDeviceName(std::string_view name) { return name.size() <= 63 && IsValidName(name); }

bool IsValidLabelName(std::string_view name) {
  if (name.empty() || IsDigit(name.front())) return false;
  if (name.substr(0, 2) == "__") return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return IsAlnum(c) || c == '_'; });
}

const std::vector<std::string>& ReservedLabelNames() {
  // `counter` is on rxe_probe_attributed_hw_stat_total, which carries the peer's labels.
  static const std::vector<std::string> kNames{"peer",   "module",  "device",   "port",
                                               "reason", "counter", "instance", "job",
                                               "le"};
  return kNames;
}

bool IsReservedLabelName(std::string_view name) {
  const auto& names = ReservedLabelNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::optional<std::string> CheckHost(std::string_view host) {
  if (host.empty()) return "empty host";
  if (IsIpv4(host) || IsIpv6(host)) return std::nullopt;
  if (host.find(':') != std::string_view::npos) return "invalid IPv6 address";
  // Only digits and dots: meant as IPv4, so do not accept it as a host name.
  if (std::all_of(host.begin(), host.end(), [](char c) { return IsDigit(c) || c == '.'; })) {
    return "invalid IPv4 address";
  }
  if (!IsHostName(host)) return "invalid host name";
  return std::nullopt;
}

std::optional<std::string> CheckListenAddress(std::string_view addr) {
  std::string_view host;
  std::string_view port;
  if (!addr.empty() && addr.front() == '[') {
    const size_t close = addr.find(']');
    if (close == std::string_view::npos) return "missing ]";
    host = addr.substr(1, close - 1);
    if (!IsIpv6(host)) return "invalid IPv6 address";
    if (close + 1 >= addr.size() || addr[close + 1] != ':') return "missing port";
    port = addr.substr(close + 2);
  } else {
    const size_t colon = addr.rfind(':');
    if (colon == std::string_view::npos) return "missing port";
    host = addr.substr(0, colon);
    port = addr.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return "IPv6 addresses need brackets";
    if (!host.empty()) {
      if (auto err = CheckHost(host)) return err;
    }
  }
  if (port.empty()) return "missing port";
  if (!AllDigits(port) || port.size() > 5 || std::stoi(std::string(port)) < 1 ||
      std::stoi(std::string(port)) > 65535) {
    return "port must be 1..65535";
  }
  return std::nullopt;
}

std::optional<std::string> CheckCidr(std::string_view cidr) {
  const size_t slash = cidr.find('/');
  if (slash == std::string_view::npos) return "missing /prefix";
  const std::string_view addr = cidr.substr(0, slash);
  const std::string_view prefix = cidr.substr(slash + 1);
  unsigned char bytes[16] = {};
  int bits = 0;
  if (IsIpv4(addr, bytes)) {
    bits = 32;
  } else if (IsIpv6(addr, bytes)) {
    bits = 128;
  } else {
    return "invalid IP address";
  }
  if (!AllDigits(prefix) || prefix.size() > 3 || std::stoi(std::string(prefix)) > bits) {
    return "prefix length must be 0.." + std::to_string(bits);
  }
  const int len = std::stoi(std::string(prefix));
  for (int bit = len; bit < bits; ++bit) {
    if (bytes[bit / 8] & (0x80 >> (bit % 8))) return "host bits are set";
  }
  return std::nullopt;
}

std::optional<std::string> CheckRegex(const std::string& re) {
  try {
    std::regex compiled(re, std::regex::ECMAScript);
    (void)compiled;
  } catch (const std::regex_error& e) {
    return RegexErrorText(e.code());
  }
  return std::nullopt;
}

std::string JoinList(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

}  // namespace rxe::config
