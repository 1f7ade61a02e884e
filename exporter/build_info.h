// Build identity of the binary: version, git revision and compiler, shared by
// `--version`, the landing page and rxe_exporter_build_info.
#pragma once

#include <string>

namespace rxe::exporter {

const char* Version();
const char* Revision();
/// "gcc 12.2.0" or "clang 14.0.6".
const char* Compiler();
/// "linux/amd64" style platform string.
const char* Platform();
/// Multi-line text printed by `--version`, in the style of Prometheus tools:
///   rxe_exporter, version 0.1.0 (revision: 815911e)
///     compiler:         gcc 12.2.0
///     platform:         linux/amd64
std::string VersionText();

}  // namespace rxe::exporter
