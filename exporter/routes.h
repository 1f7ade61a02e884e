// HTTP endpoints, installed on every listener:
//   /                landing page (unless the telemetry path is "/")
//   <telemetry>      metrics, text format 0.0.4
//   /-/healthy       200 "Healthy" (never behind basic auth)
//   /-/ready         200 "Ready" once started, else 503
//   /-/reload        POST: reload config and web config (200, or 500 + error,
//                    503 while another reload runs); else 405
//   /debug/probes    JSON of recent probe results
//   /debug/ud_mesh   JSON of the ud_ping pairs: loss streaks, newest pongs, recent RTT
// The telemetry path and the three admin endpoints share the --web.max-requests
// limit; the admin endpoints follow --web.admin-auth.
#pragma once

#include <httplib.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "common/result.h"
#include "exporter/flags.h"

namespace rxe::exporter {

struct Endpoints {
  std::string telemetry_path = "/metrics";
  int max_requests = 4;  // concurrent telemetry + admin requests over all listeners; 0 = no limit
  AdminAuth admin_auth = AdminAuth::kAuto;
  std::function<std::string()> metrics;
  std::function<bool()> ready;
  /// kUnavailable = another reload is running (503).
  std::function<Status()> reload;
  std::function<std::string()> debug_probes;
  std::function<std::string()> debug_ud_mesh;
  /// Basic auth: whether users are configured, and whether an Authorization
  /// header value is valid. Unset = no basic auth.
  std::function<bool()> auth_enabled;
  std::function<bool(const std::string& authorization)> check_credentials;
  /// Telemetry and admin requests in flight, shared by all listeners.
  std::shared_ptr<std::atomic<int>> in_flight = std::make_shared<std::atomic<int>>(0);
};

void InstallRoutes(httplib::Server& server, std::shared_ptr<const Endpoints> endpoints);

}  // namespace rxe::exporter
