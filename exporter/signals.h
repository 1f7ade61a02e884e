// Signal handling without async-signal-unsafe handlers: SIGHUP, SIGTERM and
// SIGINT are blocked in every thread and received synchronously by one
// thread with sigtimedwait(2), which then calls ordinary code.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace rxe::exporter {

/// Blocks SIGHUP, SIGTERM and SIGINT in the calling thread and ignores
/// SIGPIPE (TLS writes to closed sockets). Call at the top of main(), before
/// any thread starts, so that every thread inherits the mask.
void BlockDaemonSignals();

class SignalThread {
 public:
  /// Calls `on_signal(signo)` on the signal thread for each received signal.
  explicit SignalThread(std::function<void(int)> on_signal);
  ~SignalThread();
  SignalThread(const SignalThread&) = delete;
  SignalThread& operator=(const SignalThread&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace rxe::exporter
