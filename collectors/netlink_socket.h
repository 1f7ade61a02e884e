// Layer 1 of the netlink collectors: RAII owners for libnl handles, libnl
// errors as rxe::Error, and a small request/reply transport that returns the
// reply messages exactly as received (so they can be decoded purely, captured
// to fixture files and replayed in tests).
//
// Pattern follows rdma-core util/rdma_nl.c: auto-ack disabled (a doit reply is
// then the only message; no stale ACK is left on a reused socket), and the
// transport checks sequence numbers itself because libnl does not when
// auto-ack is off.
#pragma once

#include <netlink/cache.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"

namespace rxe::collectors::nl {

struct NlSockDeleter {
  void operator()(nl_sock* s) const { nl_socket_free(s); }  // also closes the fd
};
struct NlMsgDeleter {
  void operator()(nl_msg* m) const { nlmsg_free(m); }
};
struct NlCacheDeleter {
  void operator()(nl_cache* c) const { nl_cache_free(c); }
};
struct RtnlLinkDeleter {
  void operator()(rtnl_link* l) const { rtnl_link_put(l); }  // drops one reference
};

using NlSockPtr = std::unique_ptr<nl_sock, NlSockDeleter>;
using NlMsgPtr = std::unique_ptr<nl_msg, NlMsgDeleter>;
using NlCachePtr = std::unique_ptr<nl_cache, NlCacheDeleter>;
using RtnlLinkPtr = std::unique_ptr<rtnl_link, RtnlLinkDeleter>;

/// The errno a libnl error code (negative or positive NLE_*) stands for; 0
/// when there is no close equivalent.
int NlErrorToErrno(int nl_error);
/// An Error for a failed libnl call: "context: <nl_geterror>", the code from
/// the mapped errno (kInternal if none), sys_errno = the mapped errno.
Error NlError(int nl_error, const std::string& context);

/// One reply message exactly as received: nlmsghdr + payload (nlmsg_len bytes).
using RawMessage = std::vector<uint8_t>;

struct NetlinkReply {
  /// Every message carrying the request's sequence number, in order,
  /// including the terminating NLMSG_DONE / NLMSG_ERROR if one was received.
  std::vector<RawMessage> messages;
  /// errno reported by the kernel in an NLMSG_ERROR (or a dump's NLMSG_DONE);
  /// 0 on success. A kernel error is a value, not a transport failure.
  int kernel_errno = 0;
};

/// A connected netlink socket (one protocol) with auto-ack disabled and a
/// receive timeout. Movable, not copyable. Not thread-safe.
class NetlinkSocket {
 public:
  /// Connects to `protocol` (NETLINK_ROUTE, NETLINK_RDMA, ...). On a kernel
  /// without the protocol the error has sys_errno EPROTONOSUPPORT.
  static Result<NetlinkSocket> Connect(int protocol, std::chrono::milliseconds timeout);

  /// Sends `request` (libnl completes pid/seq and adds NLM_F_REQUEST) and
  /// collects the reply: until NLMSG_DONE for NLM_F_DUMP, until the ACK for
  /// NLM_F_ACK, else the single reply message. Messages with another sequence
  /// number (late replies to a timed-out request) are dropped. Returns an
  /// error only for transport/protocol failures (send/recv, timeout,
  /// malformed or interrupted dump); after one, the socket should be dropped.
  Result<NetlinkReply> Transact(nl_msg* request);

  nl_sock* get() const { return sk_.get(); }
  int protocol() const { return protocol_; }

 private:
  NetlinkSocket(NlSockPtr sk, int protocol) : sk_(std::move(sk)), protocol_(protocol) {}
  NlSockPtr sk_;
  int protocol_ = 0;
};

/// Sets SO_RCVTIMEO on a libnl socket so a lost reply cannot block a scrape
/// (nl_recv then fails with -NLE_AGAIN; 0 in older libnl). Shared with rtnetlink.
Status SetReceiveTimeout(nl_sock* sk, std::chrono::milliseconds timeout);

}  // namespace rxe::collectors::nl
