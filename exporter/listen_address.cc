#include "exporter/listen_address.h"

#include <arpa/inet.h>

#include <cctype>
#include <charconv>

namespace rxe::exporter {
namespace {

Error Invalid(const std::string& text, const std::string& why) {
  return Error::Make(ErrorCode::kInvalidArgument,
                     "invalid listen address \"" + text + "\": " + why +
                         " (expected host:port, :port or [ipv6]:port)");
}

bool IsIpv6Literal(const std::string& s) {
  std::string addr = s.substr(0, s.find('%'));  // drop a zone id: fe80::1%eth0
  in6_addr out{};
  return inet_pton(AF_INET6, addr.c_str(), &out) == 1 &&
         (addr.size() == s.size() || s.size() > addr.size() + 1);
}

bool IsHostName(const std::string& s) {
  if (s.empty() || s.size() > 253) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_')
      return false;
  }
  return true;
}

}  // namespace

std::string ListenAddress::HostPort(int bound_port) const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(bound_port);
}

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  if (text.empty()) return Invalid(text, "empty");
  if (text.find("://") != std::string::npos) return Invalid(text, "URL schemes are not supported");
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) return Invalid(text, "missing port");
  const std::string host_part = text.substr(0, colon);
  const std::string port_part = text.substr(colon + 1);

  int port = -1;
  const char* end = port_part.data() + port_part.size();
  auto [ptr, ec] = std::from_chars(port_part.data(), end, port);
  if (port_part.empty() || ec != std::errc() || ptr != end || port < 0 || port > 65535) {
    return Invalid(text, "port must be a number between 0 and 65535, got \"" + port_part + "\"");
  }

  ListenAddress out;
  out.text = text;
  out.port = port;
  if (host_part.empty()) {
    out.host = "::";
    out.ipv4_fallback = true;
    return out;
  }
  if (host_part.front() == '[') {
    if (host_part.size() < 3 || host_part.back() != ']') {
      return Invalid(text, "unterminated or empty IPv6 literal");
    }
    out.host = host_part.substr(1, host_part.size() - 2);
    if (!IsIpv6Literal(out.host))
      return Invalid(text, "\"" + out.host + "\" is not an IPv6 address");
    return out;
  }
  if (host_part.find(':') != std::string::npos) {
    return Invalid(text, "IPv6 addresses must be in brackets, e.g. [::1]:19791");
  }
  if (!IsHostName(host_part))
    return Invalid(text, "\"" + host_part + "\" is not a host name or IP");
  out.host = host_part;
  return out;
}

}  // namespace rxe::exporter
