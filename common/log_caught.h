// Logging a caught exception where a loop must go on (a thread's last line of defence).
#pragma once

#include <exception>
#include <string_view>

namespace rxe::log {

/// Error(msg, {{"err", e.what()}}); never throws (when memory is short the line may be
/// lost; the caller goes on).
void CaughtError(std::string_view msg, const std::exception& e) noexcept;

}  // namespace rxe::log
