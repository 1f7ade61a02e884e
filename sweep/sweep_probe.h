// The real point function of `rxe_exporter sweep`: one probe against a
// responder (any host running rxe_exporter, this one included) through the
// prober client (probes/prober.h), with the probing thread pinned to the
// point's CPUs for the duration of the probe.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>

#include "config/model.h"
#include "probes/prober.h"
#include "sweep/sweep_runner.h"

namespace rxe::sweep {

struct ProbeTarget {
  config::Peer peer;                       // address and control port (name "sweep")
  std::string device;                      // local RDMA device; empty = the one routing to the peer
  std::optional<int> gid_index;            // perftest -x; nullopt = auto
  std::string psk;                         // pre-shared key presented to the responder
  uint64_t max_buffer_bytes = 64u << 20;   // local MR cap
  std::chrono::milliseconds slack{15000};  // timeout = duration (bandwidth) + slack
  std::string sysfs_root = "/sys";
};

/// The module RunProbe needs for `params` (pure): type and perftest
/// parameters copied, mtu 0 -> auto, timeout = duration + slack.
config::Module ModuleFor(const probes::SessionParams& params, const ProbeTarget& target);

/// The sweep value of a successful outcome: Gb/s (bits/s / 1e9) for
/// bandwidth, the median one-way latency in µs for latency (pure).
PointOutcome ToPointOutcome(const probes::ProbeOutcome& outcome);

/// Pins the calling thread to `pin` (no-op for none) and restores the
/// previous affinity on destruction. ok() is false if the kernel refused.
class ScopedPin {
 public:
  explicit ScopedPin(const PinSpec& pin);
  ~ScopedPin();
  ScopedPin(const ScopedPin&) = delete;
  ScopedPin& operator=(const ScopedPin&) = delete;
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  bool restore_ = false;
  std::string error_;
  alignas(8) unsigned char saved_[128] = {};  // cpu_set_t
};

/// Probes `target` with RunProbe; `cancel` (the SIGINT flag) stops a running probe.
PointFn MakeProbePointFn(ProbeTarget target, const std::atomic<bool>& cancel);

}  // namespace rxe::sweep
