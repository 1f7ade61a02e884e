#include "exporter/signals.h"

#include <pthread.h>
#include <signal.h>

#include <cerrno>

namespace rxe::exporter {
namespace {

sigset_t DaemonSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

void BlockDaemonSignals() {
  sigset_t set = DaemonSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

SignalThread::SignalThread(std::function<void(int)> on_signal) {
  thread_ = std::thread([this, on_signal = std::move(on_signal)] {
    const sigset_t set = DaemonSignals();
    const timespec poll{0, 200 * 1000 * 1000};  // re-check stop_ every 200 ms
    while (!stop_.load()) {
      siginfo_t info{};
      const int sig = sigtimedwait(&set, &info, &poll);
      if (sig > 0) on_signal(sig);
    }
  });
}

SignalThread::~SignalThread() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

}  // namespace rxe::exporter
