#include "doctor/doctor_probe.h"

#include <cstdio>

#include "config/units.h"
#include "doctor/doctor_gather.h"
#include "probes/responder.h"
#include "probes/stats.h"

namespace rxe::doctor {
namespace {

using Tcp = PeerFact::Tcp;

std::string Fmt(double v, const char* fmt) {
  char buf[32];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

config::Module TinyModule(std::chrono::milliseconds timeout) {
  config::Module m;
  m.name = "doctor";
  m.type = config::ProbeType::kWriteLat;
  m.size = 64;
  m.iterations = 20;
  m.tx_depth = 1;
  m.timeout = timeout;
  m.interval = timeout;
  return m;
}

}  // namespace

void ApplyRdmaOutcome(const probes::ProbeOutcome& o, PeerFact& f) {
  f.rdma_attempted = true;
  f.rdma_ok = o.success && o.measurement.has_value();
  if (o.failure) {
    f.rdma_reason = std::string(probes::FailureReasonName(o.failure->reason));
    f.rdma_detail = o.failure->detail;
    f.wc_status = o.failure->wc_status;
    return;
  }
  if (const auto* lat =
          o.measurement ? std::get_if<probes::LatencyMeasurement>(&*o.measurement) : nullptr) {
    const auto s = probes::ComputeLatency(lat->rtt_seconds);
    f.rdma_summary = "write_lat, " + std::to_string(s.samples) + " round trips of " +
                     std::to_string(o.params.size) + " bytes, median " +
                     Fmt(s.median * 1e6, "%.1f") + " us one-way (device " + o.device +
                     ", path MTU " + std::to_string(o.path_mtu) + ")";
  }
}

PeerFact CheckPeer(const config::Peer& peer, const probes::ProberEnv& env,
                   std::chrono::milliseconds timeout, const std::atomic<bool>& cancel) {
  PeerFact f;
  f.name = peer.name;
  f.address = peer.address;
  f.port = peer.port;
  // One probe: its failure reason tells whether the control connection (TCP)
  // failed or the RDMA part did. (A separate bare TCP connect would count as
  // a "malformed" rejection on the peer's responder.)
  const probes::ProbeOutcome o = probes::RunProbe(TinyModule(timeout), peer, env, cancel);
  if (o.failure) {
    const auto r = o.failure->reason;
    const bool control = o.failure->detail.rfind("control connection", 0) == 0;
    if (r == probes::FailureReason::kConnectRefused) f.tcp = Tcp::kRefused;
    if (r == probes::FailureReason::kConnectTimeout) f.tcp = Tcp::kTimeout;
    if (r == probes::FailureReason::kNoRoute && control) f.tcp = Tcp::kNoRoute;
    if (f.tcp != Tcp::kOk) {
      f.tcp_detail = o.failure->detail;
      return f;
    }
  }
  f.tcp_detail = "control protocol handshake done";
  if (o.failure && (o.failure->reason == probes::FailureReason::kRejected ||
                    o.failure->reason == probes::FailureReason::kAuthFailed)) {
    f.tcp_detail = "connected; the responder answered";
  }
  ApplyRdmaOutcome(o, f);
  return f;
}

std::optional<std::string> LocalRoceAddress(
    const std::vector<DeviceFact>& devices) {
  for (const auto& d : devices) {
    for (const auto& p : d.ports) {
      if (p.state != 4 || p.link_layer != "Ethernet") continue;
      for (const auto& g : p.gids) {
        if (g.roce_v2 && g.ipv4) return *g.ipv4;
      }
    }
  }
  return std::nullopt;
}

SoftirqSample SampleSoftirqUnderLoad(const std::optional<config::Peer>& peer,
                                     const std::optional<std::string>& loopback_ip,
                                     const probes::ProberEnv& env,
                                     std::chrono::milliseconds duration,
                                     const std::string& procfs_root,
                                     const std::atomic<bool>& cancel, std::string* error) {
  SoftirqSample sample;
  config::Peer target;
  probes::Responder responder(probes::DefaultSessionFactory(), nullptr);
  if (peer) {
    target = *peer;
  } else if (loopback_ip) {
    probes::ResponderSettings rs;
    rs.listen_addresses = {*loopback_ip + ":0"};
    auto acl = probes::SourceAcl::Make({*loopback_ip + "/32"}, {});
    if (!acl.ok()) {
      *error = acl.error().message;
      return sample;
    }
    rs.acl = std::move(*acl);
    rs.psk = env.psk;
    if (auto st = responder.Start(std::move(rs)); !st.ok()) {
      *error = "in-process responder: " + st.error().message;
      return sample;
    }
    target.name = "loopback";
    target.address = *loopback_ip;
    target.port = responder.BoundPorts().at(0);
  } else {
    *error = "no reachable peer and no local RoCE v2 IPv4 address to load";
    return sample;
  }
  config::Module m;
  m.name = "doctor-load";
  m.type = config::ProbeType::kWriteBw;
  m.duration = duration;
  m.timeout = duration + std::chrono::seconds(10);
  m.interval = m.timeout;
  GatherPaths paths;
  paths.procfs_root = procfs_root;
  auto before = ReadCpuTimes(paths);
  const probes::ProbeOutcome o = probes::RunProbe(m, target, env, cancel);
  auto after = ReadCpuTimes(paths);
  responder.Stop();
  const std::string what = "a " + config::FormatDuration(duration) + " write_bw probe " +
                           (peer ? "to " + target.name : "over rxe loopback via " + target.address);
  if (!o.success || !o.measurement) {
    *error = what + " failed: " +
             (o.failure ? std::string(probes::FailureReasonName(o.failure->reason)) + ": " +
                              o.failure->detail
                        : "no measurement");
    return sample;
  }
  if (!before || !after) {
    *error = "cannot read " + procfs_root + "/stat";
    return sample;
  }
  const auto& bw = std::get<probes::BandwidthMeasurement>(*o.measurement);
  const auto stats = probes::ComputeBandwidth(bw.bytes, bw.messages, bw.elapsed);
  sample.before = std::move(*before);
  sample.after = std::move(*after);
  sample.during = what + " (" + Fmt(stats.bits_per_second / 1e9, "%.2f") + " Gb/s)";
  return sample;
}

}  // namespace rxe::doctor
