#include "exporter/cli.h"

#include <CLI/CLI.hpp>

#include "exporter/build_info.h"

namespace rxe::exporter {
namespace {

CommandLine PrintAndExit(std::string output, int code, bool to_stderr) {
  CommandLine c;
  c.action = Action::kPrintAndExit;
  c.output = std::move(output);
  c.exit_code = code;
  c.to_stderr = to_stderr;
  return c;
}

CommandLine UsageError(const std::string& message) {
  return PrintAndExit(
      "rxe_exporter: error: " + message + "\nRun with --help for more information.\n", kExitUsage,
      true);
}

}  // namespace

CommandLine ParseCommandLine(const std::vector<std::string>& args) {
  CLI::App app{
      "Prometheus exporter for Soft-RoCE (rxe) and RoCE: port counters and active "
      "RDMA probes.",
      "rxe_exporter"};
  RawFlags raw;
  AddDaemonFlags(app, raw);
  sweep::SweepOptions sweep_options;
  doctor::DoctorOptions doctor_options;
  CLI::App* sweep_cmd = sweep::AddSweepSubcommand(app, sweep_options);
  CLI::App* doctor_cmd = doctor::AddDoctorSubcommand(app, doctor_options);

  std::vector<const char*> argv{"rxe_exporter"};
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp&) {
    return PrintAndExit(app.help(), 0, false);
  } catch (const CLI::ParseError& e) {
    return UsageError(e.what());
  }
  if (raw.version) return PrintAndExit(VersionText(), 0, false);
  RecordGivenFlags(app, raw);

  auto flags = ValidateFlags(raw);
  if (!flags.ok()) return UsageError(flags.error().message);
  CommandLine c;
  c.flags = std::move(flags.value());
  c.action = c.flags.config_check ? Action::kCheckConfig : Action::kRunDaemon;
  if (sweep_cmd->parsed()) {
    c.action = Action::kSweep;
    c.sweep = std::move(sweep_options);
  } else if (doctor_cmd->parsed()) {
    c.action = Action::kDoctor;
    c.doctor = std::move(doctor_options);
  }
  return c;
}

}  // namespace rxe::exporter
