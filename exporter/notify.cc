#include "exporter/notify.h"

#include <systemd/sd-daemon.h>
#include <time.h>

namespace rxe::exporter::notify {

void Ready() { sd_notify(0, "READY=1\nSTATUS=Serving"); }

void Reloading() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const unsigned long long usec = static_cast<unsigned long long>(ts.tv_sec) * 1000000ULL +
                                  static_cast<unsigned long long>(ts.tv_nsec) / 1000ULL;
  sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=Reloading", usec);
}

void Stopping() { sd_notify(0, "STOPPING=1\nSTATUS=Stopping"); }

void Status(const std::string& text) { sd_notifyf(0, "STATUS=%s", text.c_str()); }

void Watchdog() { sd_notify(0, "WATCHDOG=1"); }

std::optional<std::chrono::microseconds> WatchdogPingInterval() {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) <= 0 || usec == 0) return std::nullopt;
  return std::chrono::microseconds(usec / 2);
}

}  // namespace rxe::exporter::notify
