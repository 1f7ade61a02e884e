// RunSweepCommand: SIGINT handling, progress, tables and output files.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "sweep/sweep_command.h"
#include "sweep/sweep_render.h"

namespace rxe::sweep {
namespace {

std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler needs a lock-free flag");

extern "C" void OnInterrupt(int) { g_cancel.store(true, std::memory_order_relaxed); }

/// First Ctrl-C (or SIGTERM) sets the flag; SA_RESETHAND makes a second one fatal.
void InstallInterruptHandler() {
  struct sigaction sa {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // no SA_RESTART: blocking calls see EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

/// Writes via a temporary file and rename, so a file is either old or complete.
bool WriteFile(const std::filesystem::path& path, const std::string& content, std::string* error) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) {
      *error = "cannot write " + tmp.string();
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    *error = "cannot rename " + tmp.string() + ": " + ec.message();
    return false;
  }
  return true;
}

}  // namespace

int RunSweepCommand(const SweepOptions& options, const std::string& sysfs_root) {
  auto inv = ValidateSweepOptions(options);
  if (!inv.ok()) {
    std::cerr << "rxe_exporter sweep: error: " << inv.error().message << "\n";
    return 2;
  }
  inv->target.sysfs_root = sysfs_root;
  const std::filesystem::path dir(inv->output_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::cerr << "rxe_exporter sweep: error: --output-dir " << dir.string() << ": " << ec.message()
              << "\n";
    return 1;
  }
  size_t probes = 0;
  for (const auto& p : inv->plans) probes += p.points.size() * static_cast<size_t>(p.repeat);
  std::cerr << "sweep: " << inv->plans.size() << " sweep" << (inv->plans.size() == 1 ? "" : "s")
            << ", " << probes << " probes against " << inv->target_label << "; output in "
            << dir.string() << "/ (Ctrl-C stops and keeps finished points)\n";

  g_cancel.store(false);
  InstallInterruptHandler();
  std::vector<Summary> summaries;
  bool write_failed = false;
  RunOptions run;
  run.progress = &std::cerr;
  run.cancel = &g_cancel;
  run.target = inv->target_label;
  run.on_sweep_done = [&](const SweepResult& r) {
    Summary s = Summarize(r);
    std::cout << RenderTable(s) << std::endl;
    std::string error;
    for (const auto& [ext, text] :
         {std::pair{".csv", RenderCsv(s)}, {".json", RenderJson(s)}, {".svg", RenderSvg(s)}}) {
      const auto path = dir / (s.name + ext);
      if (!WriteFile(path, text, &error)) {
        std::cerr << "rxe_exporter sweep: error: " << error << "\n";
        write_failed = true;
      }
    }
    summaries.push_back(std::move(s));
  };
  const RunOutcome outcome = RunSweeps(inv->plans, MakeProbePointFn(inv->target, g_cancel), run);
  std::string error;
  if (!WriteFile(dir / "summary.json", RenderJsonRun(summaries, outcome.interrupted), &error)) {
    std::cerr << "rxe_exporter sweep: error: " << error << "\n";
    write_failed = true;
  }
  // Restore default dispositions: later code (none today) must not inherit ours.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);

  bool point_failed = false;
  for (const auto& s : summaries) {
    for (const auto& p : s.points) point_failed = point_failed || !p.median;
  }
  std::cerr << "sweep: " << (outcome.interrupted ? "interrupted; " : "done; ") << "wrote "
            << summaries.size() * 3 + 1 << " files to " << dir.string() << "/ ("
            << "<sweep>.csv, "
            << "<sweep>.json, <sweep>.svg, summary.json)\n";
  if (outcome.interrupted) return kExitSweepInterrupted;
  return point_failed || write_failed ? 1 : 0;
}

}  // namespace rxe::sweep
