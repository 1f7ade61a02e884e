// Admission by source address for the responder, and listen-address parsing.
// Pure (no I/O) except ResolvePeerAddresses, which calls getaddrinfo.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/model.h"

namespace rxe::probes {

/// An IPv4 or IPv6 prefix. IPv4 is kept as IPv4 (IPv4-mapped IPv6 sources
/// are converted before matching).
struct Cidr {
  int family = AF_INET;  // AF_INET or AF_INET6
  std::array<uint8_t, 16> addr{};
  int prefix_len = 32;
};

/// Parses "10.0.0.0/8", "fd00::/8", or a bare address (= /32 or /128).
/// Host bits set below the prefix are an error ("10.0.0.1/8").
Result<Cidr> ParseCidr(const std::string& text);

/// Normalises a socket address to (family, 16 bytes) with v4-mapped -> IPv4.
bool NormalizeAddress(const sockaddr_storage& ss, int& family, std::array<uint8_t, 16>& addr);

class SourceAcl {
 public:
  /// Builds the ACL from allowed CIDRs and the already-resolved peer addresses.
  static Result<SourceAcl> Make(const std::vector<std::string>& allowed_cidrs,
                                const std::vector<std::string>& peer_ips);
  bool Allows(const sockaddr_storage& source) const;
  size_t size() const { return entries_.size(); }

 private:
  std::vector<Cidr> entries_;
};

/// Resolves every peer's address (IP literal or host name) to IP strings.
/// Names that do not resolve are skipped (logged); the ACL is rebuilt on reload.
std::vector<std::string> ResolvePeerAddresses(const std::vector<config::Peer>& peers);

/// A parsed listen address: ":19792" (all addresses, dual-stack),
/// "0.0.0.0:19792", "10.0.0.1:19792", "[::]:19792", "[fd00::1]:19792".
struct ListenAddress {
  std::string host;  // empty = any (dual-stack)
  uint16_t port = 19792;
};
Result<ListenAddress> ParseListenAddress(const std::string& text);

}  // namespace rxe::probes
