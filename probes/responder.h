// The responder: serves probe sessions for peers' probers over the control
// protocol (docs/protocol.md). One accept thread polls every listener; each
// connection gets its own handler thread (bounded), so a slow, rejected or
// malformed connection never disturbs a concurrent good session.
//
// Admission: source address must be a configured peer's or inside
// allowed_cidrs, checked by the accept thread before anything else (a stranger
// gets REJECT not_allowed at once and never takes a handler thread or a slot,
// so strangers cannot starve allowed peers); optional PSK mutual
// authentication; at most max_sessions sessions (excess: REJECT busy);
// per-message size cap; per-session buffer cap; session lifetime cap; HELLO
// within hello_timeout; per-read I/O timeout for idle clients.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "probes/control_io.h"
#include "probes/control_protocol.h"
#include "probes/control_session.h"
#include "probes/counter_delta.h"
#include "probes/responder_acl.h"

namespace rxe::probes {

struct ResponderSettings {
  std::vector<std::string> listen_addresses{":19792"};
  SourceAcl acl;
  std::string psk;  // empty = no authentication
  uint32_t max_sessions = 4;
  uint64_t max_buffer_bytes = 4u << 20;
  Clock::duration max_session_duration = std::chrono::seconds(30);
  uint32_t max_message_bytes = control::kDefaultMaxMessageBytes;
  /// Each read during the handshake must complete within this.
  Clock::duration io_timeout = std::chrono::seconds(5);
  /// The HELLO must arrive within this after the connection is accepted (at most
  /// io_timeout): a silent allowed client holds a handshake slot no longer.
  Clock::duration hello_timeout = std::chrono::seconds(2);
  /// Connections allowed in the handshake phase beyond max_sessions.
  uint32_t extra_handshakes = 4;
};

/// Settings from the config: reads responder.psk_file (error if unreadable
/// or empty), parses allowed_cidrs and resolves the peers' addresses (static
/// and file peers) into the ACL.
Result<ResponderSettings> ResponderSettingsFrom(const config::Config& cfg, Clock::duration io_timeout);

struct ResponderStats {
  uint64_t sessions_total = 0;
  uint64_t active_sessions = 0;
  std::map<control::RejectReason, uint64_t> rejections;  // every reason present
  /// Exceptions (e.g. std::bad_alloc) caught in the accept loop or a connection thread.
  uint64_t internal_errors = 0;
};

class Responder {
 public:
  Responder(SessionFactory factory, DeviceActivity* activity);
  ~Responder();
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  /// Binds every listen address and starts the accept thread. On error
  /// nothing is left open or running.
  Status Start(ResponderSettings settings);
  /// Applies new ACL/PSK/caps to new connections (listeners are unchanged).
  void Update(ResponderSettings settings);
  /// Cancels running sessions, closes listeners, joins all threads (< ~1 s).
  void Stop();
  /// Starts cancelling (sessions see it within ~50 ms) without waiting; Stop() joins.
  void RequestStop();

  ResponderStats Stats() const;
  /// ud_ping: answers a ud_ping HELLO (after authentication) with the UD endpoint of the
  /// device that holds the control connection's local IPv4 address; nullopt (or no source)
  /// = REJECT setup_failed. Takes no session slot and creates no RDMA resources.
  using UdAddressSource = std::function<std::optional<control::UdAddress>(in_addr local_ip)>;
  void SetUdAddressSource(UdAddressSource source);
  /// Ports actually bound, in listen_addresses order (useful with port 0).
  std::vector<uint16_t> BoundPorts() const;
  /// Stats survive Stop/Start cycles (counters are cumulative).
  bool running() const { return accept_thread_.joinable(); }

  /// Shared with connection handlers (implementation detail).
  struct Shared;

 private:
  void AcceptLoop();
  void AcceptOne(int listener);
  /// Reads and discards what rejected strangers still send; closes them at EOF or
  /// after their linger deadline (`all`: closes every one).
  void DrainStrangers(bool all);
  void ReapFinished(bool all);

  std::shared_ptr<Shared> shared_;
  std::vector<control::Fd> listeners_;
  std::vector<uint16_t> ports_;
  std::thread accept_thread_;
  struct Handler {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };
  std::vector<Handler> handlers_;  // accept thread only (and Stop after it exits)
  struct Stranger {
    control::Fd fd;
    Clock::time_point deadline;
  };
  std::vector<Stranger> strangers_;  // accept thread only
};

}  // namespace rxe::probes
