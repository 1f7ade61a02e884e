// Reading a small input file (config, peer file, web config, TLS material) without ever
// blocking: a FIFO, a device or a directory given where a file is expected would hang a plain
// open()/read() (the reload thread of the daemon), so only regular files are read.
#pragma once

#include <cstddef>
#include <string>

#include "common/result.h"

namespace rxe {

/// The whole content of the regular file `path`, at most `max_bytes`. Errors (with errno):
/// cannot open; not a regular file (FIFO, socket, device, directory: kInvalidArgument naming
/// the type); larger than `max_bytes` (kInvalidArgument: "PATH: file is larger than N bytes"
/// followed by `too_large_hint`, e.g. " (1 MiB), the limit for ...").
Result<std::string> ReadRegularFile(const std::string& path, size_t max_bytes,
                                    const std::string& too_large_hint = "");

/// "FIFO", "directory", ... for an `st_mode` (for messages).
const char* FileTypeName(unsigned mode);

}  // namespace rxe
