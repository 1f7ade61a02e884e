// The sweep runner: points x repeats of every plan, calling an injected
// point function (the real one runs a probe against a responder, see
// sweep_probe.h; tests inject fakes). Progress goes to a stream, one line per
// probe:  [12/60] 01-size: size=4KiB repeat 2/3 ... 0.660 Gb/s
// A cancel flag (set by the SIGINT handler) stops the run between probes or,
// through the point function, during one; finished points are kept.
#pragma once

#include <atomic>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "sweep/sweep_result.h"

namespace rxe::sweep {

using PointFn = std::function<PointOutcome(const probes::SessionParams&, const PinSpec&)>;

struct RunOptions {
  std::ostream* progress = nullptr;           // null = quiet
  const std::atomic<bool>* cancel = nullptr;  // null = never cancelled
  std::string target;                         // copied into every SweepResult
  /// Called when a sweep ends (finished or interrupted), e.g. to print its table.
  std::function<void(const SweepResult&)> on_sweep_done;
};

struct RunOutcome {
  std::vector<SweepResult> sweeps;  // every sweep that started, with its finished points
  bool interrupted = false;
};

/// A point counts as finished when all its repeats ran; an interrupted point
/// is dropped (its completed repeats are not enough for the table's columns).
RunOutcome RunSweeps(const std::vector<Plan>& plans, const PointFn& fn, const RunOptions& options);

}  // namespace rxe::sweep
