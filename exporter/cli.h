// The command line: root command = the daemon; subcommands (sweep, doctor)
// plug in here. ParseCommandLine never exits or prints: main() does.
#pragma once

#include <string>
#include <vector>

#include "doctor/doctor_command.h"
#include "exporter/flags.h"
#include "sweep/sweep_command.h"

namespace rxe::exporter {

/// What main() should do after parsing.
enum class Action {
  kRunDaemon,    // serve (the root command)
  kCheckConfig,  // --config.check
  kPrintAndExit,  // --help, --version or a command-line error: print `output`, exit `exit_code`
  kSweep,         // `sweep` subcommand (docs/sweep.md)
  kDoctor,        // `doctor` subcommand (docs/doctor.md)
};

inline constexpr int kExitUsage = 2;  // bad flags or flag values

struct CommandLine {
  Action action = Action::kRunDaemon;
  Flags flags;
  int exit_code = 0;
  std::string output;      // for kPrintAndExit
  bool to_stderr = false;  // print `output` on stderr (errors) instead of stdout
  sweep::SweepOptions sweep;     // for kSweep
  doctor::DoctorOptions doctor;  // for kDoctor
};

/// `args` excludes the program name.
CommandLine ParseCommandLine(const std::vector<std::string>& args);

}  // namespace rxe::exporter
