#include "collectors/netlink_message.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

namespace rxe::collectors::nl {
namespace {

// The kernel's errors are -errno, -4095..-1 (MAX_ERRNO). Anything else cannot be negated
// safely (INT_MIN) or is no errno: a protocol error.
int ErrnoFromNegated(int value) {
  constexpr int kMaxErrno = 4095;
  if (value == 0) return 0;
  if (value < 0 && value >= -kMaxErrno) return -value;
  return EPROTO;
}

}  // namespace

Result<std::vector<const nlmsghdr*>> SplitMessages(std::span<const uint8_t> bytes) {
  std::vector<const nlmsghdr*> out;
  size_t off = 0;
  while (off < bytes.size()) {
    const size_t left = bytes.size() - off;
    if (left < sizeof(nlmsghdr)) {
      return Error::Make(
          ErrorCode::kInvalidArgument,
          "netlink: " + std::to_string(left) + " trailing bytes at offset " + std::to_string(off));
    }
    const auto* nlh = reinterpret_cast<const nlmsghdr*>(bytes.data() + off);
    if (nlh->nlmsg_len < sizeof(nlmsghdr) || nlh->nlmsg_len > left) {
      return Error::Make(ErrorCode::kInvalidArgument,
                         "netlink: bad nlmsg_len " + std::to_string(nlh->nlmsg_len) +
                             " at offset " + std::to_string(off) + " (" + std::to_string(left) +
                             " bytes left)");
    }
    out.push_back(nlh);
    // The last message of a datagram may lack its alignment padding.
    off += std::min<size_t>(NLMSG_ALIGN(nlh->nlmsg_len), left);
  }
  return out;
}

std::optional<int> ControlMessageErrno(const nlmsghdr* nlh) {
  const size_t payload = nlh->nlmsg_len - sizeof(nlmsghdr);
  if (nlh->nlmsg_type == NLMSG_ERROR) {
    if (payload < sizeof(nlmsgerr)) return std::nullopt;
    nlmsgerr e;
    std::memcpy(&e, NLMSG_DATA(nlh), sizeof(e));
    return ErrnoFromNegated(e.error);
  }
  if (nlh->nlmsg_type == NLMSG_DONE) {
    if (payload < sizeof(int)) return 0;
    int err;
    std::memcpy(&err, NLMSG_DATA(nlh), sizeof(err));
    return err < 0 ? ErrnoFromNegated(err) : 0;
  }
  return std::nullopt;
}

}  // namespace rxe::collectors::nl
