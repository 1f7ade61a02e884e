// Parsing of --web.listen-address values (exporter-toolkit syntax).
#pragma once

#include <string>

#include "common/result.h"

namespace rxe::exporter {

/// One address to listen on.
///   ":19791"           all addresses, IPv4 and IPv6 (dual-stack "::"; falls back
///                      to 0.0.0.0 when the host has no IPv6)
///   "[::]:19791"       the same dual-stack socket, without the IPv4 fallback
///   "0.0.0.0:19791"    all IPv4 addresses only
///   "127.0.0.1:19791", "[::1]:19791", "[fe80::1%eth0]:19791", "localhost:19791"
/// Port 0 picks a free port (tests).
struct ListenAddress {
  std::string text;  // as given, for logs
  std::string host;  // what is bound: "::", "0.0.0.0", an IP literal or a host name
  int port = 0;
  bool ipv4_fallback = false;  // ":port": retry on 0.0.0.0 if "::" cannot be bound

  /// "host:port" with IPv6 literals in brackets, for URLs and logs.
  std::string HostPort(int bound_port) const;
};

Result<ListenAddress> ParseListenAddress(const std::string& text);

}  // namespace rxe::exporter
