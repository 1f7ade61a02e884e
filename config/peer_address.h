// A peer given on a command line (`sweep --peer`, `doctor --peer`):
// "HOST", "HOST:PORT" or "[V6]:PORT", port default 19792.
#pragma once

#include <string>

#include "common/result.h"
#include "config/model.h"

namespace rxe::config {

/// The peer's address and port; `name` is left empty for the caller. Errors
/// start with "--peer: " and say what is wrong, e.g. `--peer: bad port "0" (1..65535)`.
Result<Peer> ParsePeerAddress(const std::string& text);

}  // namespace rxe::config
