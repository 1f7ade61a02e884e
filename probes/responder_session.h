// One responder connection, from HELLO to BYE (internal to responder.cc).
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "probes/control_io.h"
#include "probes/control_session.h"
#include "probes/counter_delta.h"
#include "probes/responder.h"

namespace rxe::probes {

struct Responder::Shared {
  SessionFactory factory;
  DeviceActivity* activity = nullptr;  // may be null
  Responder::UdAddressSource ud_address;  // guarded by mu
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> next_session_id{1};

  mutable std::mutex mu;
  std::shared_ptr<const ResponderSettings> settings;
  ResponderStats stats;
  uint32_t handshakes = 0;  // connections being handled (any phase)

  std::shared_ptr<const ResponderSettings> Settings() const {
    std::lock_guard<std::mutex> lock(mu);
    return settings;
  }
  void CountRejection(control::RejectReason r) {
    std::lock_guard<std::mutex> lock(mu);
    ++stats.rejections[r];
  }
  /// Takes a session slot if fewer than max_sessions are active.
  bool TryAcquireSession(uint32_t max_sessions) {
    std::lock_guard<std::mutex> lock(mu);
    if (stats.active_sessions >= max_sessions) return false;
    ++stats.active_sessions;
    return true;
  }
  void ReleaseSession() {
    std::lock_guard<std::mutex> lock(mu);
    --stats.active_sessions;
  }
  void CountInternalError() {
    std::lock_guard<std::mutex> lock(mu);
    ++stats.internal_errors;
  }
  void CountSession() {
    std::lock_guard<std::mutex> lock(mu);
    ++stats.sessions_total;
  }
};

/// Serves one accepted connection from an allowed source until it ends. Never throws.
void ServeConnection(Responder::Shared& shared, control::Fd fd, const sockaddr_storage& remote);

/// Sends REJECT (best effort, short deadline) and counts it. With `linger`,
/// half-closes and drains what the client still sends (up to ~1 s), so the
/// REJECT is not lost to a TCP reset.
void RejectConnection(Responder::Shared& shared, int fd, control::RejectReason reason,
                      const std::string& text, bool linger = true);

}  // namespace rxe::probes
