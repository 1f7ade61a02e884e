// The costly doctor facts: each peer's control port and a tiny RDMA exchange
// (probes/prober.h), and per-CPU softirq time while a short bandwidth probe
// runs (to a reachable peer, else rxe loopback through an in-process
// responder on this host's RoCE address).
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "config/model.h"
#include "doctor/doctor_checks.h"
#include "probes/prober.h"

namespace rxe::doctor {


/// Maps a probe outcome onto a PeerFact's RDMA fields (pure).
void ApplyRdmaOutcome(const probes::ProbeOutcome& outcome, PeerFact& fact);

/// TCP connect to the control port, then (if it worked) a 20-iteration
/// 64-byte write_lat probe. Bounded by `timeout` per step.
PeerFact CheckPeer(const config::Peer& peer, const probes::ProberEnv& env,
                   std::chrono::milliseconds timeout, const std::atomic<bool>& cancel);

/// The IPv4 address of the first ACTIVE Ethernet port's RoCE v2 IPv4 GID.
std::optional<std::string> LocalRoceAddress(
    const std::vector<DeviceFact>& devices);

/// Samples <procfs>/stat around a `duration` write_bw probe to `peer`
/// (nullopt: loopback through an in-process responder on `loopback_ip`).
/// The sample's `during` names the probe and its result; on failure to run
/// any probe the sample is empty (the check then skips) and `error` is set.
SoftirqSample SampleSoftirqUnderLoad(const std::optional<config::Peer>& peer,
                                     const std::optional<std::string>& loopback_ip,
                                     const probes::ProberEnv& env,
                                     std::chrono::milliseconds duration,
                                     const std::string& procfs_root,
                                     const std::atomic<bool>& cancel, std::string* error);

}  // namespace rxe::doctor
