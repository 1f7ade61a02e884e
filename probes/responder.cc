#include "probes/responder.h"

#include <arpa/inet.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <thread>

#include "common/log.h"
#include "common/log_caught.h"
#include "probes/responder_session.h"

namespace rxe::probes {
namespace {

constexpr int kBacklog = 16;
constexpr int kPollMs = 50;
constexpr auto kRejectSendTimeout = std::chrono::milliseconds(200);
constexpr auto kLinger = std::chrono::seconds(1);
// Rejected strangers whose sockets are drained (so the REJECT is not lost to a TCP reset);
// beyond this many the oldest is closed at once.
constexpr size_t kMaxDrainingStrangers = 64;

Result<control::Fd> Listen(const ListenAddress& la) {
  sockaddr_storage ss{};
  socklen_t len = 0;
  int family = AF_INET6;
  bool any = la.host.empty();
  if (!any) {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    if (::inet_pton(AF_INET, la.host.c_str(), &s4->sin_addr) == 1) {
      family = AF_INET;
    } else if (::inet_pton(AF_INET6, la.host.c_str(), &s6->sin6_addr) != 1) {
      return Error::Make(ErrorCode::kInvalidArgument, "bad listen host " + la.host);
    }
  }
  control::Fd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid() && any && (errno == EAFNOSUPPORT || errno == EINVAL)) {
    family = AF_INET;  // no IPv6 in this kernel: IPv4 any
    fd = control::Fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  }
  if (!fd.valid()) return Error::FromErrno(errno, "responder socket");
  int one = 1, zero = 0;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (family == AF_INET6 && any) ::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
  ss.ss_family = static_cast<sa_family_t>(family);
  if (family == AF_INET) {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    s4->sin_port = htons(la.port);
    if (any) s4->sin_addr.s_addr = htonl(INADDR_ANY);
    len = sizeof(sockaddr_in);
  } else {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    s6->sin6_port = htons(la.port);
    if (any) s6->sin6_addr = in6addr_any;
    len = sizeof(sockaddr_in6);
  }
  std::string where = (la.host.empty() ? std::string("*") : la.host) + ":" + std::to_string(la.port);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&ss), len) != 0) {
    return Error::FromErrno(errno, "responder bind " + where);
  }
  if (::listen(fd.get(), kBacklog) != 0) return Error::FromErrno(errno, "responder listen " + where);
  return fd;
}

uint16_t BoundPort(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return 0;
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
}

}  // namespace

void RejectConnection(Responder::Shared& shared, int fd, control::RejectReason reason,
                      const std::string& text, bool linger) {
  shared.CountRejection(reason);
  control::Reject rej{reason, text};
  if (control::SendMessage(fd, control::Message{rej}, Clock::now() + kRejectSendTimeout)) return;
  if (!linger) return;
  ::shutdown(fd, SHUT_WR);
  // Drain until EOF so unread client bytes do not turn our close into a reset.
  auto deadline = Clock::now() + kLinger;
  char buf[512];
  while (!shared.stop.load()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 50))) < 0 && errno != EINTR) break;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) break;
  }
}

Responder::Responder(SessionFactory factory, DeviceActivity* activity)
    : shared_(std::make_shared<Shared>()) {
  shared_->factory = std::move(factory);
  shared_->activity = activity;
  for (auto r : control::kAllRejectReasons) shared_->stats.rejections[r] = 0;
}

Responder::~Responder() { Stop(); }

Status Responder::Start(ResponderSettings settings) {
  Stop();
  std::vector<control::Fd> fds;
  std::vector<uint16_t> ports;
  for (const auto& text : settings.listen_addresses) {
    auto la = ParseListenAddress(text);
    if (!la.ok()) return la.error();
    auto fd = Listen(*la);
    if (!fd.ok()) return fd.error();
    ports.push_back(BoundPort(fd->get()));
    fds.push_back(std::move(*fd));
  }
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->settings = std::make_shared<const ResponderSettings>(std::move(settings));
  }
  listeners_ = std::move(fds);
  ports_ = std::move(ports);
  shared_->stop = false;
  try {
    accept_thread_ = std::thread([this] { AcceptLoop(); });
  } catch (const std::exception& e) {
    listeners_.clear();
    return Error::Make(ErrorCode::kInternal, std::string("responder thread: ") + e.what());
  }
  for (size_t i = 0; i < ports_.size(); ++i) {
    log::Info("responder listening", {{"address", shared_->Settings()->listen_addresses[i]},
                                      {"port", std::to_string(ports_[i])}});
  }
  return Status::Ok();
}

void Responder::Update(ResponderSettings settings) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->settings = std::make_shared<const ResponderSettings>(std::move(settings));
}

void Responder::RequestStop() { shared_->stop = true; }

void Responder::Stop() {
  shared_->stop = true;
  if (accept_thread_.joinable()) accept_thread_.join();
  ReapFinished(true);
  listeners_.clear();
  ports_.clear();
}

void Responder::SetUdAddressSource(UdAddressSource source) {
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->ud_address = std::move(source);
}

ResponderStats Responder::Stats() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->stats;
}

std::vector<uint16_t> Responder::BoundPorts() const { return ports_; }

void Responder::ReapFinished(bool all) {
  for (auto it = handlers_.begin(); it != handlers_.end();) {
    if (all || it->finished->load()) {
      if (it->thread.joinable()) it->thread.join();
      it = handlers_.erase(it);
    } else {
      ++it;
    }
  }
}

void Responder::AcceptLoop() {
  std::vector<pollfd> pfds;
  for (const auto& l : listeners_) pfds.push_back(pollfd{l.get(), POLLIN, 0});
  while (!shared_->stop.load()) {
    try {
      ReapFinished(false);
      DrainStrangers(false);
      int rc = ::poll(pfds.data(), pfds.size(), kPollMs);
      if (rc <= 0) continue;
      for (auto& p : pfds) {
        if ((p.revents & POLLIN) != 0) AcceptOne(p.fd);
      }
    } catch (const std::exception& e) {  // e.g. std::bad_alloc: would std::terminate the daemon
      shared_->CountInternalError();
      log::CaughtError("responder: accept loop failed; going on", e);
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
    }
  }
  DrainStrangers(true);
}

void Responder::AcceptOne(int listener) {
  sockaddr_storage remote{};
  socklen_t len = sizeof remote;
  control::Fd fd(::accept4(listener, reinterpret_cast<sockaddr*>(&remote), &len,
                           SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!fd.valid()) return;  // EAGAIN, ECONNABORTED, EMFILE: try again next round
  control::PrepareSocket(fd.get());
  auto settings = shared_->Settings();
  if (!settings->acl.Allows(remote)) {
    // Strangers never get a handler thread nor a handshake slot: REJECT at once (an
    // empty socket buffer takes it without blocking), then a bounded drain here.
    log::Debug("responder rejected a session", {{"remote", control::AddressToString(remote)},
                                                {"reason", "not_allowed"}});
    RejectConnection(*shared_, fd.get(), control::RejectReason::kNotAllowed,
                     "source address not allowed", /*linger=*/false);
    ::shutdown(fd.get(), SHUT_WR);
    if (strangers_.size() >= kMaxDrainingStrangers) strangers_.erase(strangers_.begin());  // oldest
    strangers_.push_back(Stranger{std::move(fd), Clock::now() + kLinger});
    return;
  }
  bool over = false;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    over = shared_->handshakes >= settings->max_sessions + settings->extra_handshakes;
    if (!over) ++shared_->handshakes;
  }
  if (over) {
    RejectConnection(*shared_, fd.get(), control::RejectReason::kBusy, "too many connections",
                     /*linger=*/false);
    return;
  }
  auto finished = std::make_shared<std::atomic<bool>>(false);
  auto conn = std::make_shared<control::Fd>(std::move(fd));
  auto shared = shared_;
  try {
    handlers_.push_back(Handler{std::thread([shared, conn, remote, finished] {
                                  ServeConnection(*shared, std::move(*conn), remote);
                                  {
                                    std::lock_guard<std::mutex> lock(shared->mu);
                                    --shared->handshakes;
                                  }
                                  finished->store(true);
                                }),
                                finished});
  } catch (const std::exception& e) {
    shared_->CountInternalError();
    log::CaughtError("responder: cannot start connection thread", e);
    std::lock_guard<std::mutex> lock(shared_->mu);
    --shared_->handshakes;
  }
}

void Responder::DrainStrangers(bool all) {
  constexpr int kDrainReadsPerPass = 16;
  const auto now = Clock::now();
  char buf[512];
  for (auto it = strangers_.begin(); it != strangers_.end();) {
    bool done = all || now >= it->deadline;
    // At most kDrainReadsPerPass reads per stranger per pass: one that keeps sending cannot
    // hold the accept thread, and is closed at its deadline whatever it sends.
    for (int reads = 0; !done && reads < kDrainReadsPerPass; ++reads) {
      const ssize_t n = ::recv(it->fd.get(), buf, sizeof buf, 0);
      if (n > 0) continue;
      done = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
      break;
    }
    it = done ? strangers_.erase(it) : std::next(it);
  }
}

}  // namespace rxe::probes
