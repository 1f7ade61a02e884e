// `rxe_exporter sweep`: flags, validation into plans, and the run (progress
// on stderr, tables on stdout, CSV/JSON/SVG files, Ctrl-C keeps what finished).
//
//   rxe_exporter sweep --peer HOST[:PORT] (--vary NAME=VALUES ... | --preset article)
//       [--repeat N] [--baseline VALUE] [--type T] [--size S] [--mtu M|auto] [--qps N]
//       [--post-list N] [--cq-mod N] [--tx-depth N] [--inline N] [--cpu none|LIST]
//       [--duration D] [--iterations N] [--device DEV] [--gid-index N] [--psk-file F]
//       [--timeout D] [--pin-cpu N] [--output-dir DIR]
//
// Exit status: 0 every point measured, 1 a point failed on every repeat or an
// output file could not be written, 2 usage error, 130 interrupted (Ctrl-C;
// finished points are printed and written).
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "sweep/sweep_probe.h"

namespace CLI {
class App;
}

namespace rxe::sweep {

inline constexpr int kExitSweepInterrupted = 130;

/// Flag values exactly as given.
struct SweepOptions {
  std::string peer;               // HOST[:PORT], port default 19792
  std::vector<std::string> vary;  // one sweep per --vary
  std::string preset;             // "article"
  int repeat = 3;
  std::string baseline;  // empty = the article's baseline value, else the first point
  std::string type = "write_bw";
  std::string size;  // empty = 64KiB (bandwidth) or 2 (latency)
  std::string mtu = "auto";
  std::string qps = "1", post_list = "1", cq_mod = "1", tx_depth = "128", inline_size = "0";
  std::string cpu = "none";
  std::string duration = "1s";
  std::string iterations = "1000";
  std::string device;
  int gid_index = -1;  // -1 = auto
  std::string psk_file;
  std::string timeout = "15s";  // per probe, on top of the bandwidth duration
  int pin_cpu = 0;              // the preset's pinned CPU (experiment 6)
  std::string output_dir = "rxe-sweep";
};

/// Registers the subcommand and its flags on `app`; returns it (check ->parsed()).
CLI::App* AddSweepSubcommand(CLI::App& app, SweepOptions& options);

/// What a validated command line runs.
struct SweepInvocation {
  std::vector<Plan> plans;
  ProbeTarget target;
  std::string target_label;  // "10.0.0.2:19792"
  std::string output_dir;
};

/// Validates the flags and expands the plans (reads --psk-file). Errors name the flag.
Result<SweepInvocation> ValidateSweepOptions(const SweepOptions& options);

/// Runs the sweeps; returns the exit status. `sysfs_root` from --path.sysfs.
int RunSweepCommand(const SweepOptions& options, const std::string& sysfs_root);

}  // namespace rxe::sweep
