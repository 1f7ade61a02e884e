// Pure helpers over raw netlink bytes (no sockets): splitting a buffer into
// messages and reading the error of an NLMSG_ERROR / NLMSG_DONE. Used by the
// transport, the decoders and the fixture tests.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/result.h"

namespace rxe::collectors::nl {

/// Splits `bytes` (one datagram, or a capture file of concatenated messages)
/// into message headers pointing into `bytes`. Fails with kInvalidArgument if
/// a header or length is inconsistent, or if trailing bytes remain.
Result<std::vector<const nlmsghdr*>> SplitMessages(std::span<const uint8_t> bytes);

/// True for NLMSG_NOOP/ERROR/DONE/OVERRUN (types below NLMSG_MIN_TYPE).
inline bool IsControlMessage(const nlmsghdr* nlh) { return nlh->nlmsg_type < NLMSG_MIN_TYPE; }

/// For NLMSG_ERROR: the positive errno (0 for an ACK). For NLMSG_DONE: the
/// positive errno of a failed dump if the payload carries one, else 0.
/// A value that is no negated errno (positive in NLMSG_ERROR, below -4095, INT_MIN)
/// gives EPROTO. nullopt for other types or a truncated error message.
std::optional<int> ControlMessageErrno(const nlmsghdr* nlh);

}  // namespace rxe::collectors::nl
