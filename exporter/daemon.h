// Entry points behind main(): the daemon (signals, sd_notify, watchdog,
// peer-file polling around an App) and --config.check.
#pragma once

#include "exporter/flags.h"

namespace rxe::exporter {

/// Serves until SIGTERM/SIGINT; SIGHUP reloads. Returns the exit status:
/// 0 after a clean shutdown, 1 if the daemon could not start.
int RunDaemon(const Flags& flags);

/// Validates --config.file (with its peer files and the psk files it names)
/// and --web.config.file (with its TLS files): everything RunDaemon reads at
/// start. Prints "config OK" on stdout (and each config::MeshWarnings line as
/// "warning: ..." on stderr) and returns 0, or prints the errors on stderr and
/// returns 1.
int RunConfigCheck(const Flags& flags);

}  // namespace rxe::exporter
