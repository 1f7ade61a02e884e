// Peer checks (peer_control, peer_rdma) and the memlock need of a config.
#include <algorithm>

#include "doctor/doctor_checks.h"

namespace rxe::doctor {
namespace {

CheckResult PeerResult(const char* check, const PeerFact& p) {
  CheckResult r;
  r.check = check;
  r.peer = p.name;
  return r;
}

std::string Endpoint(const PeerFact& p) { return p.address + ":" + std::to_string(p.port); }

bool Contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

}  // namespace

CheckResult CheckPeerControl(const PeerFact& p) {
  CheckResult r = PeerResult("peer_control", p);
  const std::string detail = p.tcp_detail.empty() ? "" : " (" + p.tcp_detail + ")";
  switch (p.tcp) {
    case PeerFact::Tcp::kOk:
      r.evidence = "TCP connection to the responder at " + Endpoint(p) + " succeeded" + detail;
      return r;
    case PeerFact::Tcp::kRefused:
      r.status = CheckStatus::kFail;
      r.evidence = "connection to " + Endpoint(p) + " refused" + detail;
      r.fix = "the responder is not running on " + p.address +
              ": start rxe_exporter there "
              "(systemctl start rxe_exporter; responder.enabled: true, listening on :" +
              std::to_string(p.port) + ")";
      return r;
    case PeerFact::Tcp::kTimeout:
      r.status = CheckStatus::kFail;
      r.evidence = "no answer from " + Endpoint(p) + detail;
      r.fix = "the host is down or a firewall drops TCP " + std::to_string(p.port) +
              ": check that " + p.address + " is up and allow TCP " + std::to_string(p.port) +
              " (and UDP 4791 for RoCE v2) between the hosts";
      return r;
    case PeerFact::Tcp::kNoRoute:
      r.status = CheckStatus::kFail;
      r.evidence = "no route to " + Endpoint(p) + detail;
      r.fix = "check the peer address and the routing table (ip route get " + p.address + ")";
      return r;
    case PeerFact::Tcp::kOther:
      break;
  }
  r.status = CheckStatus::kFail;
  r.evidence = "control connection to " + Endpoint(p) + " failed" + detail;
  r.fix = "check the peer address and port in the configuration";
  return r;
}

CheckResult CheckPeerRdma(const PeerFact& p) {
  CheckResult r = PeerResult("peer_rdma", p);
  if (p.tcp != PeerFact::Tcp::kOk || !p.rdma_attempted) {
    r.status = CheckStatus::kSkip;
    r.evidence =
        p.tcp != PeerFact::Tcp::kOk ? "not tried: the control connection failed" : "not tried";
    return r;
  }
  if (p.rdma_ok) {
    r.evidence = "RDMA exchange with " + p.address + " succeeded" +
                 (p.rdma_summary.empty() ? "" : ": " + p.rdma_summary);
    return r;
  }
  r.status = CheckStatus::kFail;
  const std::string wc = p.wc_status.empty() ? "" : " [" + p.wc_status + "]";
  r.evidence = "TCP " + std::to_string(p.port) +
               " works but the RDMA exchange failed: " + p.rdma_reason +
               (p.rdma_detail.empty() ? "" : ": " + p.rdma_detail) + wc;
  const bool retry = Contains(p.wc_status, "RETRY_EXC") || Contains(p.wc_status, "retry") ||
                     Contains(p.rdma_detail, "retry");
  // Timeouts of control messages ("waiting for ACCEPT: ...", "sending HELLO: ...")
  // are the responder stalling, not RoCE traffic being dropped.
  const bool control_stall =
      p.rdma_reason == "timeout" &&
      (p.rdma_detail.rfind("waiting for ", 0) == 0 || p.rdma_detail.rfind("sending ", 0) == 0);
  if (control_stall) {
    r.fix =
        "the responder stopped answering on the control connection (hung or overloaded): "
        "check rxe_exporter's log on " +
        p.address + " and restart it";
  } else if (p.rdma_reason == "timeout" || (p.rdma_reason == "wc_error" && retry)) {
    r.evidence += " -> RoCE v2 packets (UDP 4791) do not get through";
    r.fix =
        "a firewall drops UDP 4791 (RoCE v2) while TCP passes: allow it on both hosts, e.g. "
        "sudo nft insert rule inet filter input udp dport 4791 accept, or sudo iptables -I "
        "INPUT -p udp --dport 4791 -j ACCEPT, or sudo ufw allow 4791/udp; check with "
        "tcpdump -ni <netdev> udp port 4791";
  } else if (p.rdma_reason == "rejected") {
    r.fix =
        "the responder refused the session: add this host to its peers or "
        "responder.allowed_cidrs, or raise responder.max_sessions if it was busy";
  } else if (p.rdma_reason == "auth_failed") {
    r.fix =
        "use the same pre-shared key on both sides (prober.psk_file here, responder.psk_file "
        "there)";
  } else if (p.rdma_reason == "mtu_above_active") {
    r.fix =
        "the requested MTU exceeds a side's active MTU: enable jumbo frames (ip link set dev "
        "<netdev> mtu 9000) on both hosts, or lower the module's mtu";
  } else if (p.rdma_reason == "no_gid" || p.rdma_reason == "no_device") {
    r.fix =
        "the local address used to reach the peer has no RoCE v2 GID: create rxe on that "
        "interface (rdma link add rxe0 type rxe netdev <netdev>) or set the module's device";
  } else {
    r.fix =
        "see the detail; rerun with --log.level=debug and check both hosts' rxe counters "
        "(rdma statistic show)";
  }
  return r;
}

MemlockNeed MemlockNeedFor(const config::Config& cfg) {
  // A probe session registers 2 x size rounded up to 64 bytes (probes/rdma_session_params.h).
  auto buffer = [](uint64_t size) { return 2 * ((size + 63) / 64 * 64); };
  MemlockNeed need;
  uint64_t largest = 0;
  for (const auto& [name, m] : cfg.modules) {
    const uint64_t size = m.size != 0 ? m.size : (config::IsBandwidth(m.type) ? 65536 : 2);
    largest = std::max(largest, buffer(size));
  }
  if (largest == 0) largest = buffer(65536);
  const uint64_t probes = cfg.prober.max_concurrent * largest;
  const uint64_t responder =
      cfg.responder.enabled ? uint64_t{cfg.responder.max_sessions} * cfg.responder.max_buffer_bytes
                            : 0;
  need.largest_buffer_bytes = largest;
  need.concurrent_bytes = probes + responder;
  need.detail = std::to_string(cfg.prober.max_concurrent) + " probes x " + Bytes(largest);
  if (cfg.responder.enabled) {
    need.detail += " + " + std::to_string(cfg.responder.max_sessions) + " responder sessions x " +
                   Bytes(cfg.responder.max_buffer_bytes);
  }
  return need;
}

}  // namespace rxe::doctor
