// The responder side of one control connection:
//   HELLO -> [CHALLENGE, AUTH] -> ACCEPT -> ENDPOINT <-> ENDPOINT -> READY <-> READY
//   -> (probe runs) -> DONE <-> DONE -> BYE
// Any failure ends in REJECT(reason) or a silent close; every resource is
// owned by a scope object (fd, session slot, device activity, RdmaSession,
// worker thread), so every exit path frees everything.
#include "probes/responder_session.h"

#include <sys/socket.h>

#include <algorithm>
#include <optional>
#include <string>
#include <thread>

#include "common/log.h"
#include "common/log_caught.h"
#include "probes/auth.h"
#include "probes/rdma_session_params.h"

namespace rxe::probes {
namespace {

using control::RejectReason;
constexpr auto kDoneGrace = std::chrono::seconds(1);

std::string Ms(Clock::time_point since) {
  return std::to_string(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count());
}

uint64_t GroupOf(const control::Nonce& n) {
  uint64_t g = 0;
  for (size_t i = 0; i < 8; ++i) g = (g << 8) | n[i];
  return g;
}

class Connection {
 public:
  Connection(Responder::Shared& shared, control::Fd fd, const sockaddr_storage& remote)
      : shared_(shared), fd_(std::move(fd)), remote_(control::AddressToString(remote)),
        settings_(shared.Settings()), start_(Clock::now()) {}
  ~Connection() {
    if (slot_) {
      log::Debug("responder session closed", {{"remote", remote_}, {"ms", Ms(start_)}});
      shared_.ReleaseSession();
    }
    if (activity_token_ != 0 && shared_.activity != nullptr) shared_.activity->Exit(activity_token_);
  }
  void Serve();

 private:
  Clock::time_point IoDeadline() const { return Clock::now() + settings_->io_timeout; }
  void Reject(RejectReason r, const std::string& text) {
    log::Info("responder rejected a session", {{"remote", remote_},
                                               {"reason", std::string(control::RejectReasonName(r))},
                                               {"detail", text}});
    RejectConnection(shared_, fd_.get(), r, text);
  }
  std::optional<control::Message> Receive(Clock::time_point deadline, bool hello);
  template <typename T>
  std::optional<T> Expect(Clock::time_point deadline, bool hello = false);
  bool Send(const control::Message& m) {
    auto err = control::SendMessage(fd_.get(), m, IoDeadline(), &shared_.stop);
    if (err) log::Debug("responder send failed", {{"remote", remote_}, {"err", IoErrorToString(*err)}});
    return !err;
  }
  bool Authenticate(const control::Nonce& client_nonce);
  void RunSession(const control::Hello& hello);
  void ServeUdAddress(const control::Nonce& client_nonce);
  void ServeProbe(RdmaSession& session, Clock::time_point session_deadline);

  Responder::Shared& shared_;
  control::Fd fd_;
  std::string remote_;
  std::shared_ptr<const ResponderSettings> settings_;
  bool slot_ = false;
  DeviceActivity::Token activity_token_ = 0;
  Clock::time_point start_;
};

std::optional<control::Message> Connection::Receive(Clock::time_point deadline, bool hello) {
  auto r = control::ReceiveMessage(fd_.get(), settings_->max_message_bytes, deadline, &shared_.stop);
  if (auto* m = std::get_if<control::Message>(&r)) return std::move(*m);
  const auto& e = std::get<control::IoError>(r);
  switch (e.code) {
    case control::IoErrorCode::kWire:
      switch (e.wire.code) {
        case control::WireErrorCode::kOversized: Reject(RejectReason::kOversized, e.wire.detail); break;
        case control::WireErrorCode::kBadVersion: Reject(RejectReason::kBadVersion, e.wire.detail); break;
        case control::WireErrorCode::kOutOfRange:
          Reject(hello ? RejectReason::kBadParams : RejectReason::kMalformed, e.wire.detail);
          break;
        default: Reject(RejectReason::kMalformed, e.wire.detail);
      }
      break;
    case control::IoErrorCode::kTimeout:
      Reject(RejectReason::kTimeout, "no message within the I/O timeout");
      break;
    default:  // closed, reset, cancelled: nobody to answer
      log::Debug("responder connection ended", {{"remote", remote_}, {"why", IoErrorToString(e)}});
  }
  return std::nullopt;
}

template <typename T>
std::optional<T> Connection::Expect(Clock::time_point deadline, bool hello) {
  auto m = Receive(deadline, hello);
  if (!m) return std::nullopt;
  if (auto* t = std::get_if<T>(&*m)) return std::move(*t);
  if (!std::holds_alternative<control::Bye>(*m) && !std::holds_alternative<control::Reject>(*m)) {
    Reject(RejectReason::kMalformed,
           "unexpected " + std::string(control::MessageTypeName(control::TypeOf(*m))) + ", expected " +
               std::string(control::MessageTypeName(control::TypeOf(control::Message{T{}}))));
  }
  return std::nullopt;
}

bool Connection::Authenticate(const control::Nonce& client_nonce) {
  auto nonce = auth::RandomNonce();
  if (!nonce.ok()) {
    Reject(RejectReason::kSetupFailed, nonce.error().message);
    return false;
  }
  control::Challenge ch{*nonce, auth::ComputeProof(settings_->psk, auth::Direction::kResponderToClient,
                                                   client_nonce, *nonce)};
  if (!Send(control::Message{ch})) return false;
  auto r = control::ReceiveMessage(fd_.get(), settings_->max_message_bytes, IoDeadline(), &shared_.stop);
  auto* m = std::get_if<control::Message>(&r);
  auto* a = m != nullptr ? std::get_if<control::Auth>(m) : nullptr;
  if (a == nullptr || !auth::VerifyProof(settings_->psk, auth::Direction::kClientToResponder,
                                         client_nonce, *nonce, a->client_proof)) {
    // A client without the key closes or sends BYE: that is a failed authentication too.
    Reject(RejectReason::kAuthFailed, "authentication failed");
    return false;
  }
  return true;
}

void Connection::Serve() {
  const auto hello_deadline = start_ + std::min(settings_->hello_timeout, settings_->io_timeout);
  auto hello = Expect<control::Hello>(hello_deadline, /*hello=*/true);
  if (!hello) return;
  const SessionParams& p = hello->params;
  if (p.type == config::ProbeType::kUdPing) {
    ServeUdAddress(hello->client_nonce);
    return;
  }
  if (p.size > settings_->max_buffer_bytes) {
    Reject(RejectReason::kBadParams, "size above the responder's max_buffer_bytes");
    return;
  }
  if (p.duration > settings_->max_session_duration) {
    Reject(RejectReason::kBadParams, "duration above the responder's max_session_duration");
    return;
  }
  auto shape = ShapeSession(p, Role::kResponder, settings_->max_buffer_bytes);
  if (auto* why = std::get_if<std::string>(&shape)) {
    Reject(RejectReason::kBadParams, *why);
    return;
  }
  if (!settings_->psk.empty() && !Authenticate(hello->client_nonce)) return;
  if (!shared_.TryAcquireSession(settings_->max_sessions)) {
    Reject(RejectReason::kBusy, "max_sessions reached");
    return;
  }
  slot_ = true;
  RunSession(*hello);
}

// ud_ping address query: HELLO(ud_ping) -> [CHALLENGE, AUTH] -> ACCEPT -> UD_ADDRESS.
void Connection::ServeUdAddress(const control::Nonce& client_nonce) {
  if (!settings_->psk.empty() && !Authenticate(client_nonce)) return;
  auto local_ip = control::LocalIpv4(fd_.get());
  Responder::UdAddressSource source;
  {
    std::lock_guard<std::mutex> lock(shared_.mu);
    source = shared_.ud_address;
  }
  std::optional<control::UdAddress> address;
  if (local_ip && source) address = source(*local_ip);
  if (!address) {
    Reject(RejectReason::kSetupFailed, "ud_ping is not running on this host for the address " +
                                           std::string(local_ip ? "queried" : "(IPv6)"));
    return;
  }
  if (!Send(control::Message{control::Accept{0}})) return;
  (void)Send(control::Message{*address});
}

void Connection::RunSession(const control::Hello& hello) {
  auto local_ip = control::LocalIpv4(fd_.get());
  if (!local_ip) {
    Reject(RejectReason::kSetupFailed, "IPv6 control connections are not supported; use IPv4");
    return;
  }
  LocalTarget where;
  where.local_ip = *local_ip;
  auto created = shared_.factory(hello.params, Role::kResponder, where, settings_->max_buffer_bytes);
  if (auto* f = std::get_if<ProbeFailure>(&created)) {
    Reject(RejectReason::kSetupFailed,
           std::string(FailureReasonName(f->reason)) + ": " + f->detail);
    return;
  }
  std::unique_ptr<RdmaSession> session = std::move(std::get<0>(created));
  if (shared_.activity != nullptr) {
    activity_token_ = shared_.activity->Enter(session->DeviceName(), GroupOf(hello.client_nonce));
  }
  uint64_t id = shared_.next_session_id++;
  auto session_deadline = Clock::now() + settings_->max_session_duration;
  shared_.CountSession();
  if (!Send(control::Message{control::Accept{id}})) return;

  auto remote = Expect<control::Endpoint>(std::min(IoDeadline(), session_deadline));
  if (!remote) return;
  EndpointInfo local = session->Local();
  if (remote->info.qps.size() != local.qps.size()) {
    Reject(RejectReason::kBadParams, "endpoint has " + std::to_string(remote->info.qps.size()) +
                                         " QPs, session has " + std::to_string(local.qps.size()));
    return;
  }
  if (!Send(control::Message{control::Endpoint{local}})) return;
  uint32_t mtu = hello.params.mtu;
  if (mtu != 0 && (mtu > local.active_mtu || mtu > remote->info.active_mtu)) {
    // The client sees both active MTUs in the ENDPOINTs and fails with mtu_above_active.
    Reject(RejectReason::kBadParams, "requested MTU above an active MTU");
    return;
  }
  if (mtu == 0) mtu = std::min(local.active_mtu, remote->info.active_mtu);
  if (auto f = session->Connect(remote->info, mtu)) {
    Reject(RejectReason::kSetupFailed, std::string(FailureReasonName(f->reason)) + ": " + f->detail);
    return;
  }
  if (!Send(control::Message{control::Ready{}})) return;
  if (!Expect<control::Ready>(std::min(IoDeadline(), session_deadline))) return;
  log::Debug("responder session running",
             {{"remote", remote_}, {"session", std::to_string(id)}, {"ms", Ms(start_)}});
  ServeProbe(*session, session_deadline);
}

void Connection::ServeProbe(RdmaSession& session, Clock::time_point session_deadline) {
  std::atomic<bool> done{false}, cancel{false}, finished{false};
  std::optional<ProbeFailure> failure;
  std::thread worker;
  try {
    worker = std::thread([&] {
      try {
        failure = session.RunResponder(session_deadline, done, cancel);
      } catch (const std::exception& e) {
        failure = ProbeFailure{FailureReason::kInternal, e.what(), ""};
      }
      finished = true;
    });
  } catch (const std::exception& e) {
    Reject(RejectReason::kSetupFailed, std::string("thread: ") + e.what());
    return;
  }
  // Every exit joins the worker. After the client's DONE it gets kDoneGrace to
  // notice `done` (e.g. a pong still in flight to a client that is gone), then
  // it is cancelled; Stop() cancels at once.
  auto finish_worker = [&](Clock::duration grace) {
    auto until = Clock::now() + grace;
    while (!finished && !shared_.stop && Clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    cancel = true;
    if (worker.joinable()) worker.join();
  };
  struct Joiner {
    decltype(finish_worker)& finish;
    ~Joiner() { finish(Clock::duration::zero()); }
  } joiner{finish_worker};

  auto r = control::ReceiveMessage(fd_.get(), settings_->max_message_bytes, session_deadline,
                                   &shared_.stop);
  auto* m = std::get_if<control::Message>(&r);
  if (m == nullptr || !std::holds_alternative<control::Done>(*m)) {
    const auto* e = std::get_if<control::IoError>(&r);
    if (e != nullptr && e->code == control::IoErrorCode::kTimeout) {
      log::Info("responder session lifetime exceeded", {{"remote", remote_}});
    } else {
      log::Debug("responder session aborted", {{"remote", remote_}, {"ms", Ms(start_)},
                                               {"why", e ? IoErrorToString(*e) : "unexpected message"}});
    }
    finish_worker(Clock::duration::zero());
    Send(control::Message{control::Bye{}});
    return;
  }
  done = true;
  finish_worker(kDoneGrace);
  log::Debug("responder probe done", {{"remote", remote_}, {"ms", Ms(start_)},
                                      {"failure", failure ? failure->detail : ""}});
  control::Done reply;
  reply.ok = !failure.has_value();
  if (failure) reply.text = std::string(FailureReasonName(failure->reason)) + ": " + failure->detail;
  if (!Send(control::Message{reply})) return;
  // Wait briefly for the client's BYE so its last read is not cut by a reset.
  (void)control::ReceiveMessage(fd_.get(), settings_->max_message_bytes, IoDeadline(), &shared_.stop);
}

}  // namespace

void ServeConnection(Responder::Shared& shared, control::Fd fd, const sockaddr_storage& remote) {
  try {
    Connection c(shared, std::move(fd), remote);
    c.Serve();
  } catch (const std::exception& e) {
    shared.CountInternalError();
    log::CaughtError("responder connection failed", e);
  }
}

}  // namespace rxe::probes
