// The HTML page served at "/" (exporter-toolkit style landing page).
#pragma once

#include <string>

namespace rxe::exporter {

/// Name, version and links to the telemetry path, /-/healthy, /-/ready and
/// /debug/probes.
std::string LandingPageHtml(const std::string& telemetry_path);

std::string HtmlEscape(const std::string& s);

}  // namespace rxe::exporter
