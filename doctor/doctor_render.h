// `rxe_exporter doctor` output (pure): text for people, JSON for scripts.
#pragma once

#include <string>
#include <vector>

#include "doctor/doctor_checks.h"

namespace rxe::doctor {


/// One block per check:
///   [FAIL] mtu rxe0/1: netdev eth0 MTU 1500 -> active RoCE MTU 1024 ...
///          fix: enable jumbo frames: ...
/// then a summary line with the counts, the worst result and the exit status.
std::string RenderText(const std::vector<CheckResult>& results);

/// {"checks": [{"check", "status", "device"?, "port"?, "peer"?, "evidence", "fix"?}],
///  "summary": {"pass", "warn", "fail", "skip", "worst", "exit_status"}}
std::string RenderJson(const std::vector<CheckResult>& results);

}  // namespace rxe::doctor
