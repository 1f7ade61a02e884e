// The prober client: runs one probe of `module` against `peer` over the
// control protocol and the RDMA engine, and reports a ProbeOutcome. Every
// failure path maps to one FailureReason (probes/failure.h).
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

#include "config/model.h"
#include "probes/control_protocol.h"
#include "probes/control_session.h"
#include "probes/counter_delta.h"
#include "probes/engine.h"

namespace rxe::probes {

/// What the prober needs besides the module and the peer.
struct ProberEnv {
  SessionFactory factory;
  DeviceActivity* activity = nullptr;  // null: no counter attribution
  std::string sysfs_root = "/sys";
  std::string psk;  // prober.psk_file content; empty = no authentication
  uint32_t max_message_bytes = control::kDefaultMaxMessageBytes;
  uint64_t max_buffer_bytes = 4u << 20;  // local MR cap (responder.max_buffer_bytes)
};

struct ProbeOutcome {
  std::string module;
  std::string peer;
  config::ProbeType type = config::ProbeType::kWriteBw;
  bool success = false;
  bool cancelled = false;  // stopped by the service (not recorded)
  std::optional<ProbeFailure> failure;
  std::optional<Measurement> measurement;
  SessionParams params;
  std::chrono::system_clock::time_point started_at{};
  Clock::duration duration{};
  std::string device;         // local RDMA device ("" if none was opened)
  uint32_t path_mtu = 0;      // bytes, 0 if not connected
  bool counters_attributed = false;  // the probe ran alone on `device`
  CounterSnapshot counter_deltas;    // kAttributedCounters deltas (when attributed)
  std::string responder_detail;      // the responder's DONE text, if any
  std::optional<control::UdAddress> ud_address;  // ud_ping: the peer's UD endpoint
  std::optional<in_addr> local_ip;  // ud_ping: our side of the control connection (IPv4)
};

/// perftest defaults applied to a module: size 0 -> 65536 (bandwidth) or
/// 2 (latency); latency types use tx_depth 1; mtu nullopt -> 0 (auto).
SessionParams ParamsFor(const config::Module& module);

/// Runs one probe; for a ud_ping module it only fetches the peer's UD endpoint address
/// (ProbeOutcome::ud_address) over the authenticated control protocol. Returns within about module.timeout (plus connect/RTR
/// set-up that the kernel bounds) or soon after `cancel` is set. Never throws.
ProbeOutcome RunProbe(const config::Module& module, const config::Peer& peer, const ProberEnv& env,
                      const std::atomic<bool>& cancel);

}  // namespace rxe::probes
