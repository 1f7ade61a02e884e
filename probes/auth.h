// Optional pre-shared-key (PSK) mutual authentication for the control
// protocol: HMAC-SHA256 challenge-response over both nonces and a context
// string that names the direction, so a proof for one direction is never
// valid for the other. The responder proves itself first (CHALLENGE), the
// client answers (AUTH). Proofs are compared with CRYPTO_memcmp.
//
// This is admission control and peer identification, not channel security:
// the TCP control connection is neither encrypted nor integrity-protected.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "probes/control_protocol.h"

namespace rxe::probes::auth {

enum class Direction { kResponderToClient, kClientToResponder };

/// Context strings mixed into the MAC (documented in docs/protocol.md).
std::string_view ContextString(Direction d);

/// Reads a key file: the file content is the key; trailing CR/LF characters
/// are stripped (files written with `echo`). Errors if the file is unreadable,
/// empty (after stripping), larger than 64 KiB, not a regular file (a FIFO
/// would block the start), a symbolic link, or accessible by others (any of
/// the mode's o bits; group access only logs a warning). Never blocks.
Result<std::string> LoadPsk(const std::string& path);

/// HMAC-SHA256(key, context || client_nonce || responder_nonce).
control::Proof ComputeProof(std::string_view key, Direction d, const control::Nonce& client_nonce,
                            const control::Nonce& responder_nonce);

/// Constant-time check of `proof` against the expected value.
bool VerifyProof(std::string_view key, Direction d, const control::Nonce& client_nonce,
                 const control::Nonce& responder_nonce, const control::Proof& proof);

/// A fresh nonce from OpenSSL's CSPRNG.
Result<control::Nonce> RandomNonce();

}  // namespace rxe::probes::auth
