// A peer given as "HOST", "HOST:PORT" or "[V6]:PORT", port default 19792: on a command line
// (`sweep --peer`, `doctor --peer`) and as a Prometheus file_sd target (config/file_sd.h).
#pragma once

#include <string>

#include "common/result.h"
#include "config/model.h"

namespace rxe::config {

/// The target's address and port; `name` is left empty. Errors say only what is wrong,
/// e.g. `bad port "0" (1..65535)`, `unbalanced [ in "[fd00::1"`, `empty host in ":80"`.
/// The host is not validated (config::CheckHost does that).
Result<Peer> ParseHostPort(const std::string& text);

/// ParseHostPort for a command line: the address and port, `name` left empty. Errors start
/// with "--peer: " and say what is wrong, e.g. `--peer: bad port "0" (1..65535)`.
Result<Peer> ParsePeerAddress(const std::string& text);

}  // namespace rxe::config
