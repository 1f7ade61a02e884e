#include "config/peer_address.h"

#include <charconv>

namespace rxe::config {
namespace {

Error Bad(const std::string& why) { return Error::Make(ErrorCode::kInvalidArgument, why); }

}  // namespace

Result<Peer> ParseHostPort(const std::string& text) {
  Peer peer;
  std::string host = text;
  std::string port;
  bool has_port = false;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string::npos) return Bad("unbalanced [ in \"" + text + "\"");
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return Bad("bad address \"" + text + "\"");
      port = text.substr(close + 2);
      has_port = true;
    }
  } else if (text.find(':') != std::string::npos && text.find(':') == text.rfind(':')) {
    host = text.substr(0, text.find(':'));
    port = text.substr(text.find(':') + 1);
    has_port = true;
  }
  if (host.empty()) return Bad("empty host in \"" + text + "\"");
  if (has_port && port.empty()) return Bad("empty port in \"" + text + "\"");
  peer.address = host;
  if (has_port) {
    unsigned v = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), v);
    if (ec != std::errc() || ptr != port.data() + port.size() || v == 0 || v > 65535) {
      return Bad("bad port \"" + port + "\" (1..65535)");
    }
    peer.port = static_cast<uint16_t>(v);
  }
  return peer;
}

Result<Peer> ParsePeerAddress(const std::string& text) {
  if (text.empty())
    return Bad("--peer: required: the address of a host running rxe_exporter "
               "(its responder, TCP 19792), e.g. --peer 10.0.0.2");
  auto peer = ParseHostPort(text);
  if (!peer.ok()) return peer.error().Wrap("--peer");
  return peer;
}

}  // namespace rxe::config
