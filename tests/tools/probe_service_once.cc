// probe_service_once: starts a ProbeService (responder + scheduler) from a
// config file, lets it run, then prints the probe metrics (Prometheus text)
// and optionally the /debug/probes JSON. Used by the lab cases
// (tests/lab/cases/probe_service_*.sh).
//
//   probe_service_once --config FILE [--seconds N] [--sysfs DIR] [--json FILE]
//                      [--reload FILE --reload-after S] [--metrics FILE --stop-file FILE]
//                      [--until-file FILE]
// Metrics go to stdout, or with --metrics to FILE (written atomically, so its
// appearance signals "collected"). With --until-file the metrics FILE is rewritten every
// 0.5 s (after the reload, if any) until that file exists, --seconds being only a deadline:
// the caller polls for the state it needs, not for a fixed time. With --stop-file the service keeps running
// (responder up for the peers) until that file exists. Then Stop() is timed:
// "# STOP_MS <ms>" on stdout. Exit status: 0 ok, 1 start/reload error, 2 usage.
#include <prometheus/text_serializer.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "common/log.h"
#include "config/loader.h"
#include "probes/probe_service.h"

namespace {

[[noreturn]] void Usage(const char* msg) {
  std::fprintf(stderr,
               "%s\nusage: probe_service_once --config FILE [--seconds N] [--sysfs DIR]\n"
               "  [--json FILE] [--reload FILE --reload-after S] [--metrics FILE [--until-file F]]\n"
               "  [--stop-file F] [--debug]\n"
               "--until-file: rewrite --metrics every 0.5 s until F exists (or --seconds passed),\n"
               "  so a caller can wait for what it needs instead of a fixed time\n",
               msg);
  std::exit(2);
}

bool Load(const std::string& path, rxe::config::Config& out) {
  auto cfg = rxe::config::LoadFile(path);
  if (!cfg.ok()) {
    std::fprintf(stderr, "config: %s\n", cfg.error().message.c_str());
    return false;
  }
  out = std::move(*cfg);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string config, sysfs = "/sys", json, reload, metrics, stop_file, until_file;
  double seconds = 10, reload_after = -1;
  bool debug = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) Usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--config") config = next();
    else if (a == "--seconds") seconds = std::atof(next().c_str());
    else if (a == "--sysfs") sysfs = next();
    else if (a == "--json") json = next();
    else if (a == "--reload") reload = next();
    else if (a == "--reload-after") reload_after = std::atof(next().c_str());
    else if (a == "--metrics") metrics = next();
    else if (a == "--stop-file") stop_file = next();
    else if (a == "--until-file") until_file = next();
    else if (a == "--debug") debug = true;
    else Usage(("unknown flag " + a).c_str());
  }
  if (config.empty()) Usage("--config is required");
  rxe::log::Init(debug ? rxe::log::Level::kDebug : rxe::log::Level::kInfo, rxe::log::Format::kLogfmt);

  rxe::config::Config cfg;
  if (!Load(config, cfg)) return 1;
  rxe::probes::ProbeService svc;
  rxe::probes::StartOptions opts;
  opts.sysfs_root = sysfs;
  auto st = svc.Start(cfg, opts);
  if (!st.ok()) {
    std::fprintf(stderr, "start: %s\n", st.error().message.c_str());
    return 1;
  }
  auto start = std::chrono::steady_clock::now();
  auto until = [&](double s) {
    std::this_thread::sleep_until(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                              std::chrono::duration<double>(s)));
  };
  if (!reload.empty() && reload_after >= 0) {
    until(reload_after);
    rxe::config::Config next;
    if (!Load(reload, next)) return 1;
    auto r = svc.ApplyConfig(next);
    std::fprintf(stderr, "RELOAD ok=%d %s\n", r.ok() ? 1 : 0, r.ok() ? "" : r.error().message.c_str());
    if (!r.ok()) return 1;
  }
  auto write_metrics = [&] {
    std::string text = prometheus::TextSerializer().Serialize(svc.Collect());
    if (metrics.empty()) {
      std::fputs(text.c_str(), stdout);
    } else {
      std::ofstream(metrics + ".tmp") << text;
      std::rename((metrics + ".tmp").c_str(), metrics.c_str());
    }
  };
  if (until_file.empty() || metrics.empty()) {
    until(seconds);
  } else {
    const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(seconds));
    while (!std::ifstream(until_file).good() && std::chrono::steady_clock::now() < deadline) {
      write_metrics();
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
  write_metrics();
  if (!json.empty()) {  // last: its appearance says both are final
    std::ofstream(json + ".tmp") << svc.DebugJson() << "\n";
    std::rename((json + ".tmp").c_str(), json.c_str());
  }
  while (!stop_file.empty() && !std::ifstream(stop_file).good()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto stop_start = std::chrono::steady_clock::now();
  svc.Stop();
  double stop_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - stop_start).count();
  std::printf("# STOP_MS %.0f\n", stop_ms);
  return 0;
}
