// Client side of the control protocol (docs/protocol.md):
//   connect -> HELLO -> [CHALLENGE -> AUTH] -> ACCEPT -> ENDPOINT <-> ENDPOINT
//   -> Connect (RTR/RTS) -> READY <-> READY -> RunClient -> DONE <-> DONE -> BYE
// ud_ping address query: connect -> HELLO(ud_ping) -> [CHALLENGE -> AUTH] -> ACCEPT
//   -> UD_ADDRESS -> BYE
#include "probes/prober.h"

#include <cerrno>

#include "common/log.h"
#include "probes/auth.h"
#include "probes/control_io.h"

namespace rxe::probes {
namespace {

using control::IoErrorCode;

ProbeFailure Fail(FailureReason r, std::string detail) { return ProbeFailure{r, std::move(detail), ""}; }

ProbeFailure FromConnectError(const control::IoError& e, const config::Peer& peer) {
  std::string where = peer.address + ":" + std::to_string(peer.port);
  std::string what = "control connection to " + where + ": " + control::IoErrorToString(e);
  switch (e.code) {
    case IoErrorCode::kResolve: return Fail(FailureReason::kNoRoute, what);
    case IoErrorCode::kTimeout:
    case IoErrorCode::kCancelled: return Fail(FailureReason::kConnectTimeout, what);
    default: break;
  }
  switch (e.sys_errno) {
    case ECONNREFUSED:
    case ECONNRESET:
    case EACCES:
    case EPERM: return Fail(FailureReason::kConnectRefused, what);
    case EHOSTUNREACH:
    case ENETUNREACH:
    case ENETDOWN:
    case EADDRNOTAVAIL:
    case EAFNOSUPPORT: return Fail(FailureReason::kNoRoute, what);
    default: return Fail(FailureReason::kConnectTimeout, what);
  }
}

/// One probe's client state; Run() returns the failure, if any.
class ClientRun {
 public:
  ClientRun(const config::Module& m, const config::Peer& p, const ProberEnv& env,
            const std::atomic<bool>& cancel, ProbeOutcome& out)
      : module_(m), peer_(p), env_(env), cancel_(cancel), out_(out),
        deadline_(Clock::now() + m.timeout) {}
  ~ClientRun() {
    if (token_ != 0) env_.activity->Exit(token_);
  }
  std::optional<ProbeFailure> Run();
  const std::string& phases() const { return phases_; }

 private:
  void Phase(const char* name) {
    phases_ += std::string(phases_.empty() ? "" : " ") + name + "=" +
               std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  Clock::now() - start_).count());
  }
  /// Receives one message or maps the I/O error to a failure.
  std::variant<control::Message, ProbeFailure> Receive(const char* waiting_for);
  std::optional<ProbeFailure> Send(const control::Message& m) {
    if (auto e = control::SendMessage(fd_.get(), m, deadline_, &cancel_)) {
      return e->code == IoErrorCode::kTimeout || e->code == IoErrorCode::kCancelled
                 ? Fail(FailureReason::kTimeout, "sending " + std::string(control::MessageTypeName(
                                                                 control::TypeOf(m))) + ": timed out")
                 : Fail(FailureReason::kProtocolError, control::IoErrorToString(*e));
    }
    return std::nullopt;
  }
  std::optional<ProbeFailure> Handshake(const control::Nonce& nonce);
  std::optional<ProbeFailure> Exchange(RdmaSession& s);
  void Finish(const ProbeResult<Measurement>& result);

  const config::Module& module_;
  const config::Peer& peer_;
  const ProberEnv& env_;
  const std::atomic<bool>& cancel_;
  ProbeOutcome& out_;
  Clock::time_point deadline_;
  control::Fd fd_;
  DeviceActivity::Token token_ = 0;
  CounterSnapshot before_;
  Clock::time_point start_ = Clock::now();
  std::string phases_;  // "connect=12 accept=30 ..." (ms since start), for debug logs
};

ProbeFailure FromReject(const control::Reject& r) {
  std::string text = "responder rejected: " + std::string(control::RejectReasonName(r.reason)) +
                     (r.text.empty() ? "" : " (" + r.text + ")");
  return Fail(r.reason == control::RejectReason::kAuthFailed ? FailureReason::kAuthFailed
                                                             : FailureReason::kRejected,
              text);
}

std::variant<control::Message, ProbeFailure> ClientRun::Receive(const char* waiting_for) {
  auto r = control::ReceiveMessage(fd_.get(), env_.max_message_bytes, deadline_, &cancel_);
  if (auto* m = std::get_if<control::Message>(&r)) {
    if (auto* rej = std::get_if<control::Reject>(m)) return FromReject(*rej);
    return std::move(*m);
  }
  const auto& e = std::get<control::IoError>(r);
  std::string what = std::string("waiting for ") + waiting_for + ": " + control::IoErrorToString(e);
  if (e.code == IoErrorCode::kTimeout || e.code == IoErrorCode::kCancelled) {
    return Fail(FailureReason::kTimeout, what);
  }
  return Fail(FailureReason::kProtocolError, what);
}

template <typename T>
std::variant<T, ProbeFailure> As(std::variant<control::Message, ProbeFailure> r, const char* want) {
  if (auto* f = std::get_if<ProbeFailure>(&r)) return *f;
  auto& m = std::get<control::Message>(r);
  if (auto* t = std::get_if<T>(&m)) return std::move(*t);
  return Fail(FailureReason::kProtocolError,
              "expected " + std::string(want) + ", got " +
                  std::string(control::MessageTypeName(control::TypeOf(m))));
}

std::optional<ProbeFailure> ClientRun::Handshake(const control::Nonce& nonce) {
  if (auto f = Send(control::Message{control::Hello{nonce, out_.params}})) return f;
  auto first = Receive("ACCEPT");
  if (auto* f = std::get_if<ProbeFailure>(&first)) return *f;
  auto& m = std::get<control::Message>(first);
  if (auto* ch = std::get_if<control::Challenge>(&m)) {
    if (env_.psk.empty()) {
      return Fail(FailureReason::kAuthFailed, "responder requires a pre-shared key (prober.psk_file)");
    }
    if (!auth::VerifyProof(env_.psk, auth::Direction::kResponderToClient, nonce, ch->responder_nonce,
                           ch->responder_proof)) {
      return Fail(FailureReason::kAuthFailed, "responder failed to prove the pre-shared key");
    }
    control::Auth a{auth::ComputeProof(env_.psk, auth::Direction::kClientToResponder, nonce,
                                       ch->responder_nonce)};
    if (auto f = Send(control::Message{a})) return f;
    auto acc = As<control::Accept>(Receive("ACCEPT"), "ACCEPT");
    if (auto* f = std::get_if<ProbeFailure>(&acc)) return *f;
    return std::nullopt;
  }
  if (!std::holds_alternative<control::Accept>(m)) {
    return Fail(FailureReason::kProtocolError,
                "expected CHALLENGE or ACCEPT, got " +
                    std::string(control::MessageTypeName(control::TypeOf(m))));
  }
  if (!env_.psk.empty()) {
    // Mutual authentication: a responder that does not prove the key is not trusted.
    return Fail(FailureReason::kAuthFailed, "responder did not authenticate (no psk_file there?)");
  }
  return std::nullopt;
}

std::optional<ProbeFailure> ClientRun::Exchange(RdmaSession& s) {
  EndpointInfo local = s.Local();
  if (auto f = Send(control::Message{control::Endpoint{local}})) return f;
  auto ep = As<control::Endpoint>(Receive("ENDPOINT"), "ENDPOINT");
  if (auto* f = std::get_if<ProbeFailure>(&ep)) return *f;
  const EndpointInfo& remote = std::get<control::Endpoint>(ep).info;
  if (remote.qps.size() != local.qps.size()) {
    return Fail(FailureReason::kProtocolError, "responder has " + std::to_string(remote.qps.size()) +
                                                   " QPs, we have " + std::to_string(local.qps.size()));
  }
  uint32_t mtu = out_.params.mtu;
  if (mtu != 0 && (mtu > local.active_mtu || mtu > remote.active_mtu)) {
    (void)Send(control::Message{control::Bye{}});
    return Fail(FailureReason::kMtuAboveActive,
                "requested mtu " + std::to_string(mtu) + " > active mtu (local " +
                    std::to_string(local.active_mtu) + ", remote " + std::to_string(remote.active_mtu) + ")");
  }
  out_.path_mtu = mtu != 0 ? mtu : std::min(local.active_mtu, remote.active_mtu);
  if (auto f = s.Connect(remote, out_.path_mtu)) {
    (void)Send(control::Message{control::Bye{}});
    return f;
  }
  auto ready = As<control::Ready>(Receive("READY"), "READY");
  if (auto* f = std::get_if<ProbeFailure>(&ready)) return *f;
  return Send(control::Message{control::Ready{}});
}

void ClientRun::Finish(const ProbeResult<Measurement>& result) {
  control::Done done;
  if (const auto* f = std::get_if<ProbeFailure>(&result)) {
    done.ok = false;
    done.text = std::string(FailureReasonName(f->reason)) + ": " + f->detail;
  } else if (const auto* bw = std::get_if<BandwidthMeasurement>(&std::get<Measurement>(result))) {
    done.bytes = bw->bytes;
    done.messages = bw->messages;
  }
  if (Send(control::Message{done})) return;
  // The responder's DONE is informational: the measurement is the client's (a peer that
  // vanished after the data phase leaves a valid measurement; say so in the detail).
  auto reply = As<control::Done>(Receive("DONE"), "DONE");
  if (auto* d = std::get_if<control::Done>(&reply)) {
    out_.responder_detail = d->ok ? "" : d->text;
  } else {
    out_.responder_detail = "no DONE from the responder after the data phase: " +
                            std::get<ProbeFailure>(reply).detail;
    return;
  }
  (void)Send(control::Message{control::Bye{}});
}

std::optional<ProbeFailure> ClientRun::Run() {
  auto nonce = auth::RandomNonce();
  if (!nonce.ok()) return Fail(FailureReason::kInternal, nonce.error().message);
  auto conn = control::ConnectTcp(peer_.address, peer_.port, deadline_, &cancel_);
  if (auto* e = std::get_if<control::IoError>(&conn)) return FromConnectError(*e, peer_);
  fd_ = std::move(std::get<control::Fd>(conn));
  Phase("connect");
  if (auto f = Handshake(*nonce)) return f;
  Phase("accept");
  if (module_.type == config::ProbeType::kUdPing) {
    auto addr = As<control::UdAddress>(Receive("UD_ADDRESS"), "UD_ADDRESS");
    if (auto* f = std::get_if<ProbeFailure>(&addr)) return *f;
    out_.ud_address = std::get<control::UdAddress>(addr);
    out_.local_ip = control::LocalIpv4(fd_.get());  // picks the local device, as for RC probes
    (void)Send(control::Message{control::Bye{}});
    return std::nullopt;
  }

  auto local_ip = control::LocalIpv4(fd_.get());
  if (!local_ip) {
    return Fail(FailureReason::kNoGid, "control connection uses IPv6; RoCE v2 probing needs IPv4");
  }
  LocalTarget where;
  where.local_ip = *local_ip;
  where.device = module_.device;
  where.gid_index = module_.gid_index;
  auto created = env_.factory(out_.params, Role::kClient, where, env_.max_buffer_bytes);
  if (auto* f = std::get_if<ProbeFailure>(&created)) {
    (void)Send(control::Message{control::Bye{}});
    return *f;
  }
  std::unique_ptr<RdmaSession> session = std::move(std::get<0>(created));
  Phase("create");
  out_.device = session->DeviceName();
  if (env_.activity != nullptr) {
    uint64_t group = 0;
    for (size_t i = 0; i < 8; ++i) group = (group << 8) | (*nonce)[i];
    token_ = env_.activity->Enter(out_.device, group);
    before_ = ReadHwCounters(env_.sysfs_root, out_.device);
  }
  if (auto f = Exchange(*session)) return f;
  Phase("ready");
  out_.data_start = Clock::now() - start_;
  ProbeResult<Measurement> result = session->RunClient(deadline_, cancel_);
  out_.data_end = Clock::now() - start_;
  Phase("run");
  if (token_ != 0) {
    CounterSnapshot after = ReadHwCounters(env_.sysfs_root, out_.device);
    out_.counters_attributed = env_.activity->Exit(token_) && !before_.empty() && !after.empty();
    token_ = 0;
    if (out_.counters_attributed) out_.counter_deltas = CounterDeltas(before_, after);
  }
  Finish(result);
  Phase("done");
  if (auto* f = std::get_if<ProbeFailure>(&result)) return *f;
  out_.measurement = std::get<Measurement>(std::move(result));
  return std::nullopt;
}

}  // namespace

SessionParams ParamsFor(const config::Module& m) {
  SessionParams p;
  bool bw = config::IsBandwidth(m.type);
  p.type = m.type;
  p.size = m.size != 0 ? m.size : (bw ? 65536u : 2u);
  p.qps = m.qps;
  p.post_list = m.post_list;
  p.cq_moderation = m.cq_moderation;
  p.tx_depth = bw ? m.tx_depth : 1;
  p.inline_size = m.inline_size;
  p.iterations = m.iterations;
  p.duration = std::chrono::duration_cast<std::chrono::milliseconds>(m.duration);
  p.mtu = m.mtu.value_or(0);
  p.qp_timeout = static_cast<uint8_t>(m.qp_timeout);
  p.use_event = m.use_event;
  return p;
}

ProbeOutcome RunProbe(const config::Module& module, const config::Peer& peer, const ProberEnv& env,
                      const std::atomic<bool>& cancel) {
  ProbeOutcome out;
  out.module = module.name;
  out.peer = peer.name;
  out.type = module.type;
  out.params = ParamsFor(module);
  out.started_at = std::chrono::system_clock::now();
  auto start = Clock::now();
  std::string phases;
  try {
    ClientRun run(module, peer, env, cancel, out);
    out.failure = run.Run();
    phases = run.phases();
  } catch (const std::exception& e) {
    out.failure = Fail(FailureReason::kInternal, e.what());
  }
  out.duration = Clock::now() - start;
  out.success = !out.failure.has_value();
  out.cancelled = cancel.load();
  log::Debug(out.failure ? "probe failed" : "probe done",
             {{"module", out.module}, {"peer", out.peer},
              {"reason", out.failure ? std::string(FailureReasonName(out.failure->reason)) : ""},
              {"detail", out.failure ? out.failure->detail : ""}, {"phases_ms", phases},
              {"total_ms", std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              out.duration).count())}});
  return out;
}

}  // namespace rxe::probes
