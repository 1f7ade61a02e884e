// Loads and validates the YAML config. Every error names file:line:column,
// the key path, what was wrong and what is allowed, e.g.
//   rxe_exporter.yml:12:7: modules.bw.qps: must be between 1 and 64, got 0
#pragma once

#include <string>

#include "common/result.h"
#include "config/model.h"

namespace rxe::config {

/// Reads and validates `path`; peer_files are resolved and read too.
Result<Config> LoadFile(const std::string& path);
/// Validates YAML text; `source_name` is used in error messages.
Result<Config> LoadString(const std::string& yaml, const std::string& source_name);

}  // namespace rxe::config
