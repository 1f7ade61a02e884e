#include "common/log.h"
#include "probes/auth.h"
#include "probes/responder.h"

namespace rxe::probes {

Result<ResponderSettings> ResponderSettingsFrom(const config::Config& cfg, Clock::duration io_timeout) {
  const config::ResponderConfig& r = cfg.responder;
  ResponderSettings s;
  s.listen_addresses = r.listen_addresses;
  for (const auto& a : s.listen_addresses) {
    auto la = ParseListenAddress(a);
    if (!la.ok()) return la.error().Wrap("responder.listen_addresses");
  }
  if (!r.psk_file.empty()) {
    auto key = auth::LoadPsk(r.psk_file);
    if (!key.ok()) return key.error().Wrap("responder.psk_file");
    s.psk = std::move(*key);
  }
  std::vector<config::Peer> peers = cfg.peers;
  peers.insert(peers.end(), cfg.file_peers.begin(), cfg.file_peers.end());
  auto acl = SourceAcl::Make(r.allowed_cidrs, ResolvePeerAddresses(peers));
  if (!acl.ok()) return acl.error();
  s.acl = std::move(*acl);
  s.max_sessions = r.max_sessions;
  s.max_buffer_bytes = r.max_buffer_bytes;
  s.max_session_duration = r.max_session_duration;
  s.max_message_bytes = r.max_message_bytes;
  s.io_timeout = io_timeout;
  if (s.acl.size() == 0) {
    log::Warn("responder allows no source address (no peers, no allowed_cidrs)");
  }
  return s;
}

}  // namespace rxe::probes
