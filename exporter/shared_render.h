// Coalesces concurrent /metrics renders: a request that arrives while a render is running
// waits for that render and gets its text, instead of starting another one. Under many
// clients (HA Prometheus pairs, dashboards hitting the exporter, a load test) the CPU spent
// on rendering stays at one render at a time and the probes keep their CPU (issue 14: 100
// clients on 300 pairs cut the probes to 1/6). A joined render started at most one render
// time before the request; no result is kept after the render ends (every new request after
// that renders afresh: no caching).
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>

namespace rxe::exporter {

class SharedRender {
 public:
  using Text = std::shared_ptr<const std::string>;
  explicit SharedRender(std::function<std::string()> render) : render_(std::move(render)) {}

  /// The text of the render in flight, or of a new one this call runs. An exception of the
  /// render reaches every caller that joined it.
  Text Get();

  struct Stats {
    uint64_t renders = 0;    // renders run
    uint64_t coalesced = 0;  // requests answered by another request's render
  };
  Stats stats() const;
  /// Callers waiting for a render of another caller right now (for tests).
  int waiting() const;

 private:
  std::function<std::string()> render_;
  mutable std::mutex mu_;
  std::shared_future<Text> in_flight_;  // valid while a render runs
  int waiting_ = 0;
  Stats stats_;
};

}  // namespace rxe::exporter
