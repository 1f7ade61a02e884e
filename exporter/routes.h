// HTTP endpoints, installed on every listener:
//   /                landing page (unless the telemetry path is "/")
//   <telemetry>      metrics, text format 0.0.4
//   /-/healthy       200 "Healthy" (never behind basic auth)
//   /-/ready         200 "Ready" once started, else 503
//   /-/reload        POST: reload config and web config (200, or 500 + error); else 405
//   /debug/probes    JSON of recent probe results
#pragma once

#include <httplib.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "common/result.h"

namespace rxe::exporter {

struct Endpoints {
  std::string telemetry_path = "/metrics";
  int max_requests = 4;  // concurrent telemetry requests over all listeners; 0 = no limit
  std::function<std::string()> metrics;
  std::function<bool()> ready;
  std::function<Status()> reload;
  std::function<std::string()> debug_probes;
  /// Returns true if the request may proceed (no auth configured, or the
  /// Authorization header value is valid).
  std::function<bool(const std::string& authorization)> authorize;
  /// Telemetry requests in flight, shared by all listeners.
  std::shared_ptr<std::atomic<int>> in_flight = std::make_shared<std::atomic<int>>(0);
};

void InstallRoutes(httplib::Server& server, std::shared_ptr<const Endpoints> endpoints);

}  // namespace rxe::exporter
