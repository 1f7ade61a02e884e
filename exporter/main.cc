// rxe_exporter: Prometheus exporter for Soft-RoCE (rxe) and RoCE.
#include <iostream>
#include <string>
#include <vector>

#include "exporter/cli.h"
#include "exporter/config_source.h"
#include "exporter/daemon.h"

int main(int argc, char** argv) {
  using rxe::exporter::Action;
  const std::vector<std::string> args(argv + 1, argv + argc);
  const rxe::exporter::CommandLine cl = rxe::exporter::ParseCommandLine(args);
  switch (cl.action) {
    case Action::kPrintAndExit:
      (cl.to_stderr ? std::cerr : std::cout) << cl.output;
      return cl.exit_code;
    case Action::kCheckConfig:
      return rxe::exporter::RunConfigCheck(cl.flags);
    case Action::kRunDaemon:
      return rxe::exporter::RunDaemon(cl.flags);
    case Action::kSweep:
      return rxe::sweep::RunSweepCommand(cl.sweep, cl.flags.sysfs_path);
    case Action::kDoctor: {
      rxe::doctor::DoctorInputs in;
      in.sysfs_root = cl.flags.sysfs_path;
      in.procfs_root = cl.flags.procfs_path;
      in.load_config = [&cl] { return rxe::exporter::LoadDaemonConfig(cl.flags); };
      return rxe::doctor::RunDoctorCommand(cl.doctor, in);
    }
  }
  return 1;
}
