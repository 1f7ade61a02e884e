#include "sweep/sweep_runner.h"

#include <algorithm>

#include "common/text_format.h"

namespace rxe::sweep {
namespace {

bool Cancelled(const RunOptions& o) {
  return o.cancel != nullptr && o.cancel->load(std::memory_order_relaxed);
}

}  // namespace

RunOutcome RunSweeps(const std::vector<Plan>& plans, const PointFn& fn, const RunOptions& options) {
  RunOutcome out;
  size_t total = 0;
  for (const auto& p : plans) total += p.points.size() * static_cast<size_t>(std::max(p.repeat, 1));
  size_t step = 0;
  std::ostream* log = options.progress;
  for (const Plan& plan : plans) {
    if (Cancelled(options)) {
      out.interrupted = true;
      break;
    }
    SweepResult result;
    result.plan = plan;
    result.target = options.target;
    const int repeat = std::max(plan.repeat, 1);
    const int decimals = plan.metric == Metric::kBandwidth ? 3 : 2;
    for (size_t i = 0; i < plan.points.size() && !out.interrupted; ++i) {
      const Point& pt = plan.points[i];
      PointRun run;
      run.index = i;
      for (int r = 1; r <= repeat; ++r) {
        if (Cancelled(options)) {
          out.interrupted = true;
          break;
        }
        ++step;
        if (log != nullptr) {
          *log << "[" << step << "/" << total << "] " << plan.name << ": " << ParamName(plan.param)
               << "=" << pt.label << " repeat " << r << "/" << repeat << " ... " << std::flush;
        }
        PointOutcome o = fn(pt.params, pt.pin);
        if (o.cancelled || (Cancelled(options) && !o.value && o.error.empty())) {
          if (log != nullptr) *log << "interrupted" << std::endl;
          out.interrupted = true;
          break;
        }
        if (o.value) {
          run.samples.push_back(*o.value);
          if (log != nullptr) {
            *log << textfmt::Fixed(*o.value, decimals) << " " << MetricUnit(plan.metric)
                 << std::endl;
          }
        } else {
          run.errors.push_back(o.error.empty() ? "unknown error" : o.error);
          if (log != nullptr) *log << "failed: " << run.errors.back() << std::endl;
        }
      }
      if (out.interrupted) break;
      result.points.push_back(std::move(run));
    }
    result.complete = result.points.size() == plan.points.size();
    if (options.on_sweep_done) options.on_sweep_done(result);
    out.sweeps.push_back(std::move(result));
    if (out.interrupted) break;
  }
  return out;
}

}  // namespace rxe::sweep
