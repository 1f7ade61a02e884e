#include "exporter/landing_page.h"

#include "common/text_escape.h"
#include "exporter/build_info.h"

namespace rxe::exporter {

std::string HtmlEscape(const std::string& s) { return MarkupEscape(s); }

std::string LandingPageHtml(const std::string& telemetry_path) {
  // Relative links ("metrics", not "/metrics") keep working behind a reverse
  // proxy that serves the exporter under a path prefix.
  const std::string metrics = HtmlEscape(telemetry_path.substr(1));
  std::string html = R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>rxe_exporter</title>
<style>
body { font-family: -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; }
header { background: #e6522c; color: #fff; padding: 0.5em 1em; }
main { padding: 0 1em; }
</style>
</head>
<body>
<header><h1>rxe_exporter</h1></header>
<main>
<p>Prometheus exporter for Soft-RoCE (rxe) and RoCE: RDMA port counters and active RDMA probes.</p>
<p>Version: )";
  html += HtmlEscape(Version());
  html += " (revision: ";
  html += HtmlEscape(Revision());
  html += R"()</p>
<ul>
<li><a href=")";
  html += metrics.empty() ? "." : metrics;
  html += R"(">Metrics</a></li>
<li><a href="-/healthy">Health</a></li>
<li><a href="-/ready">Readiness</a></li>
<li><a href="debug/probes">Probe results (JSON)</a></li>
</ul>
</main>
</body>
</html>
)";
  return html;
}

}  // namespace rxe::exporter
