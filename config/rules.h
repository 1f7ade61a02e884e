// Pure validation rules for strings in the config: names, label names, host
// names and IP literals, listen addresses, CIDRs, regular expressions. Each
// Check* returns std::nullopt when valid, otherwise the reason (without the
// "what is allowed" part, which the caller adds).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rxe::config {

/// Peer and module names: [a-zA-Z0-9_.-]+ (they become label values and URL parameters).
bool IsValidName(std::string_view name);
/// RDMA device names (module `device`): [a-zA-Z0-9_.-]{1,63}.
bool IsValidDeviceName(std::string_view name);
/// Prometheus label names: [a-zA-Z_][a-zA-Z0-9_]*, not starting with "__".
bool IsValidLabelName(std::string_view name);
/// Labels the exporter (or Prometheus) sets itself: peer, module, device, port, reason,
/// counter, instance, job, le.
const std::vector<std::string>& ReservedLabelNames();
bool IsReservedLabelName(std::string_view name);

/// An IPv4 or IPv6 literal (no brackets, no zone) or an RFC 1123 host name.
std::optional<std::string> CheckHost(std::string_view host);
/// host:port, :port or [ipv6]:port with port 1..65535.
std::optional<std::string> CheckListenAddress(std::string_view addr);
/// ADDRESS/PREFIX, IPv4 or IPv6, with no host bits set.
std::optional<std::string> CheckCidr(std::string_view cidr);
/// A valid ECMAScript regular expression (std::regex).
std::optional<std::string> CheckRegex(const std::string& re);

/// "a, b, c".
std::string JoinList(const std::vector<std::string>& items);

}  // namespace rxe::config
