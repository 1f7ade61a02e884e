// systemd notifications (sd_notify(3)); every call is a no-op when the
// daemon is not started by systemd (no $NOTIFY_SOCKET).
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace rxe::exporter::notify {

void Ready();
/// RELOADING=1 with MONOTONIC_USEC (required by systemd >= 253 for Type=notify-reload).
void Reloading();
void Stopping();
void Status(const std::string& text);
void Watchdog();
/// Half of $WATCHDOG_USEC when the watchdog is enabled for this process.
std::optional<std::chrono::microseconds> WatchdogPingInterval();

}  // namespace rxe::exporter::notify
