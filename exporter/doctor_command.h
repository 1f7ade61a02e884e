// `rxe_exporter doctor`: runs the checks an operator walks through on a
// Soft-RoCE/RoCE host and prints pass/warn/fail with evidence and the fix.
//
//   rxe_exporter doctor [--output text|json] [--peer HOST[:PORT]]... [--mtu N]
//       [--no-probes] [--timeout D] [--load-duration D] [--path.procfs DIR]
//       [--path.modules DIR] [--config.file F] [--path.sysfs DIR]
//
// Peers: the configured ones (--config.file) plus --peer. --no-probes skips
// the costly checks (peers, softirq under load). Exit status = the worst
// result: 0 pass (or skipped), 1 warn, 2 fail; 3 = usage/config error.
#pragma once

#include <string>
#include <vector>

#include "exporter/flags.h"

namespace CLI {
class App;
}

namespace rxe::exporter::doctor {

inline constexpr int kExitDoctorUsage = 3;

struct DoctorOptions {
  std::string output = "text";     // text | json
  std::vector<std::string> peers;  // HOST[:PORT], in addition to configured peers
  int mtu = 0;                     // requested RoCE MTU (0 = from the modules only)
  bool no_probes = false;
  std::string timeout = "5s";        // per peer RDMA exchange
  std::string load_duration = "2s";  // bandwidth probe while sampling softirq
  std::string procfs = "/proc";
  std::string modules = "/lib/modules";
};

/// Registers the subcommand on `app`; returns it (check ->parsed()).
CLI::App* AddDoctorSubcommand(CLI::App& app, DoctorOptions& options);

/// Runs every check; prints the report on stdout; returns the exit status.
/// Uses flags.config_file (peers, modules, psk) and flags.sysfs_path.
int RunDoctorCommand(const DoctorOptions& options, const Flags& flags);

}  // namespace rxe::exporter::doctor
