// `rxe_exporter doctor`: runs the checks an operator walks through on a
// Soft-RoCE/RoCE host and prints pass/warn/fail with evidence and the fix.
//
//   rxe_exporter doctor [--output text|json] [--peer HOST[:PORT]]... [--mtu N]
//       [--no-probes] [--timeout D] [--load-duration D] [--path.modules DIR]
//       [--config.file F] [--path.sysfs DIR] [--path.procfs DIR]
//
// --config.file, --path.sysfs and --path.procfs are the daemon's flags (the
// exporter passes them in DoctorInputs), so they mean the same in both.
//
// Peers: the configured ones (--config.file) plus --peer. --no-probes skips
// the costly checks (peers, softirq under load). Exit status = the worst
// result: 0 pass (or skipped), 1 warn, 2 fail; 3 = usage/config error.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/model.h"

namespace CLI {
class App;
}

namespace rxe::doctor {

inline constexpr int kExitDoctorUsage = 3;

struct DoctorOptions {
  std::string output = "text";     // text | json
  std::vector<std::string> peers;  // HOST[:PORT], in addition to configured peers
  int mtu = 0;                     // requested RoCE MTU (0 = from the modules only)
  bool no_probes = false;
  std::string timeout = "5s";        // per peer RDMA exchange
  std::string load_duration = "2s";  // bandwidth probe while sampling softirq
  std::string modules = "/lib/modules";
};

/// Registers the subcommand on `app`; returns it (check ->parsed()).
CLI::App* AddDoctorSubcommand(CLI::App& app, DoctorOptions& options);

/// What the doctor takes from the daemon's command line.
struct DoctorInputs {
  std::string sysfs_root = "/sys";
  std::string procfs_root = "/proc";
  /// The daemon's configuration (--config.file: peers, modules, psk), read
  /// after the doctor's own flags are checked.
  std::function<Result<config::Config>()> load_config;
};

/// Runs every check; prints the report on stdout; returns the exit status.
int RunDoctorCommand(const DoctorOptions& options, const DoctorInputs& inputs);

}  // namespace rxe::doctor
