#include "collectors/netlink_socket.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <cstdlib>

#include "collectors/netlink_message.h"

namespace rxe::collectors::nl {
namespace {

struct FreeDeleter {
  void operator()(unsigned char* p) const { std::free(p); }
};

}  // namespace

int NlErrorToErrno(int nl_error) {
  switch (nl_error < 0 ? -nl_error : nl_error) {
    case NLE_SUCCESS:
      return 0;
    case NLE_INTR:
      return EINTR;
    case NLE_BAD_SOCK:
      return EBADF;
    case NLE_AGAIN:
      return EAGAIN;
    case NLE_NOMEM:
      return ENOMEM;
    case NLE_EXIST:
      return EEXIST;
    case NLE_INVAL:
      return EINVAL;
    case NLE_RANGE:
      return ERANGE;
    case NLE_MSGSIZE:
      return EMSGSIZE;
    case NLE_OPNOTSUPP:
      return EOPNOTSUPP;
    case NLE_AF_NOSUPPORT:
      return EAFNOSUPPORT;
    case NLE_OBJ_NOTFOUND:
      return ENOENT;
    case NLE_NOATTR:
      return ENODATA;
    case NLE_MSG_TRUNC:
      return EMSGSIZE;
    case NLE_NOADDR:
      return EADDRNOTAVAIL;
    case NLE_BUSY:
      return EBUSY;
    case NLE_PROTO_MISMATCH:
      return EPROTONOSUPPORT;
    case NLE_NOACCESS:
      return EACCES;
    case NLE_PERM:
      return EPERM;
    case NLE_NODEV:
      return ENODEV;
    case NLE_DUMP_INTR:
      return EINTR;
    default:
      return 0;
  }
}

Error NlError(int nl_error, const std::string& context) {
  const int err = NlErrorToErrno(nl_error);
  Error e;
  e.code = err != 0 ? ErrnoToCode(err) : ErrorCode::kInternal;
  if (e.code == ErrorCode::kUnknown) e.code = ErrorCode::kInternal;
  e.sys_errno = err;
  e.message = context + ": " + nl_geterror(nl_error);
  return e;
}

Status SetReceiveTimeout(nl_sock* sk, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  if (setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0) {
    return Error::FromErrno(errno, "netlink setsockopt(SO_RCVTIMEO)");
  }
  return Status::Ok();
}

Result<NetlinkSocket> NetlinkSocket::Connect(int protocol, std::chrono::milliseconds timeout) {
  NlSockPtr sk(nl_socket_alloc());
  if (!sk) return Error::FromErrno(ENOMEM, "nl_socket_alloc");
  // Like rdma-core: no NLM_F_ACK on requests, so a doit is answered by exactly
  // one message (or an NLMSG_ERROR) and nothing is left over for the next one.
  nl_socket_disable_auto_ack(sk.get());
  const int rc = nl_connect(sk.get(), protocol);
  if (rc < 0) return NlError(rc, "netlink connect (protocol " + std::to_string(protocol) + ")");
  RXE_RETURN_IF_ERROR(SetReceiveTimeout(sk.get(), timeout));
  return NetlinkSocket(std::move(sk), protocol);
}

Result<NetlinkReply> NetlinkSocket::Transact(nl_msg* request) {
  const int sent = nl_send_auto(sk_.get(), request);
  if (sent < 0) return NlError(sent, "netlink send");
  const nlmsghdr* req = nlmsg_hdr(request);
  const uint32_t seq = req->nlmsg_seq;
  const bool dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
  const bool ack = (req->nlmsg_flags & NLM_F_ACK) != 0;
  const std::string what = "netlink type " + std::to_string(req->nlmsg_type);

  NetlinkReply reply;
  for (;;) {
    sockaddr_nl peer{};
    unsigned char* raw = nullptr;
    const int n = nl_recv(sk_.get(), &peer, &raw, nullptr);
    // SO_RCVTIMEO expired: libnl 3.7 returns -NLE_AGAIN (older versions 0).
    if (n == 0 || n == -NLE_AGAIN) {
      return Error{ErrorCode::kDeadlineExceeded, ETIMEDOUT, what + ": no reply before timeout"};
    }
    if (n < 0) return NlError(n, what + ": receive");
    std::unique_ptr<unsigned char, FreeDeleter> buf(raw);
    if (peer.nl_pid != 0) continue;  // only the kernel (port 0) answers requests

    auto msgs = SplitMessages({buf.get(), static_cast<size_t>(n)});
    if (!msgs.ok()) return msgs.error().Wrap(what);
    for (const nlmsghdr* nlh : *msgs) {
      if (nlh->nlmsg_seq != seq) continue;  // late reply to an earlier request
      const auto* bytes = reinterpret_cast<const uint8_t*>(nlh);
      reply.messages.emplace_back(bytes, bytes + nlh->nlmsg_len);
      if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
        return Error{ErrorCode::kUnavailable, EINTR, what + ": dump interrupted (state changed)"};
      }
      if (!IsControlMessage(nlh)) {
        if (!dump && !ack && !(nlh->nlmsg_flags & NLM_F_MULTI)) return reply;
        continue;
      }
      if (nlh->nlmsg_type == NLMSG_NOOP) continue;
      if (nlh->nlmsg_type == NLMSG_OVERRUN) {
        return Error{ErrorCode::kResourceExhausted, ENOBUFS, what + ": NLMSG_OVERRUN"};
      }
      const std::optional<int> err = ControlMessageErrno(nlh);
      if (!err) return Error::Make(ErrorCode::kInvalidArgument, what + ": truncated NLMSG_ERROR");
      reply.kernel_errno = *err;
      return reply;  // NLMSG_DONE or NLMSG_ERROR (ACK or error) ends the exchange
    }
  }
}

}  // namespace rxe::collectors::nl
