#include "exporter/flags.h"

#include <CLI/CLI.hpp>
#include <set>

#include "config/units.h"

namespace rxe::exporter {
namespace {

Error Bad(const std::string& flag, const std::string& why) {
  return Error::Make(ErrorCode::kInvalidArgument, flag + ": " + why);
}

const std::set<std::string>& ReservedPaths() {
  static const std::set<std::string> paths{"/-/healthy", "/-/ready", "/-/reload", "/debug/probes"};
  return paths;
}

}  // namespace

void AddDaemonFlags(CLI::App& app, RawFlags& raw) {
  app.add_option(
         "--config.file", raw.config_file,
         "Configuration file (YAML). When the default is absent, built-in defaults are used")
      ->default_str(kDefaultConfigFile);
  app.add_flag("--config.check", raw.config_check,
               "Validate the configuration (and --web.config.file), print the result and exit");
  app.add_option("--web.listen-address", raw.listen_addresses,
                 "Address to listen on, repeatable: host:port, :port (IPv4+IPv6), [ipv6]:port")
      ->allow_extra_args(false)
      ->default_str(kDefaultListenAddress);
  app.add_option("--web.telemetry-path", raw.telemetry_path, "Path under which to expose metrics")
      ->default_str("/metrics");
  app.add_option("--web.config.file", raw.web_config_file,
                 "Web configuration file (TLS, basic auth) in the Prometheus web-config format");
  app.add_option("--web.max-requests", raw.max_requests,
                 "Maximum concurrent telemetry, /-/reload and /debug/probes requests; more "
                 "get 503 (0 = no limit)")
      ->default_str("4");
  app.add_option("--web.max-connections", raw.max_connections,
                 "Maximum open connections per listener; at the cap a new connection evicts "
                 "the oldest idle one, or is closed")
      ->default_str("64");
  app.add_option("--web.read-timeout", raw.read_timeout,
                 "Time to receive a whole request (headers and body) from its first byte")
      ->default_str("5s");
  app.add_option("--web.max-header-bytes", raw.max_header_bytes,
                 "Maximum size of a request's line and headers; more get 431")
      ->default_str("16KiB");
  app.add_option("--web.admin-auth", raw.admin_auth,
                 "Basic auth for /-/reload and /debug/probes: auto (when basic_auth_users is "
                 "set), true (refused when no users are set), false")
      ->default_str("auto");
  app.add_option("--path.sysfs", raw.sysfs_path, "sysfs mount point")->default_str("/sys");
  app.add_option("--path.procfs", raw.procfs_path, "procfs mount point")->default_str("/proc");
  app.add_option("--log.level", raw.log_level, "Log level: debug, info, warn, error")
      ->default_str("info");
  app.add_option("--log.format", raw.log_format, "Log format: logfmt, json")->default_str("logfmt");
  app.add_flag("--version", raw.version, "Print version information and exit");
}

void RecordGivenFlags(const CLI::App& app, RawFlags& raw) {
  raw.config_file_given = app.get_option("--config.file")->count() > 0;
}

Result<Flags> ValidateFlags(const RawFlags& raw) {
  Flags f;
  f.config_check = raw.config_check;
  f.config_file_given = raw.config_file_given;

  if (raw.config_file.empty()) return Bad("--config.file", "must not be empty");
  f.config_file = raw.config_file;

  auto level = log::ParseLevel(raw.log_level);
  if (!level) {
    return Bad("--log.level",
               "invalid value \"" + raw.log_level + "\" (allowed: debug, info, warn, error)");
  }
  f.log_level = *level;
  auto format = log::ParseFormat(raw.log_format);
  if (!format) {
    return Bad("--log.format", "invalid value \"" + raw.log_format + "\" (allowed: logfmt, json)");
  }
  f.log_format = *format;

  std::vector<std::string> addrs = raw.listen_addresses;
  if (addrs.empty()) addrs.push_back(kDefaultListenAddress);
  std::set<std::string> seen;
  for (const auto& a : addrs) {
    if (!seen.insert(a).second) return Bad("--web.listen-address", "\"" + a + "\" given twice");
    auto parsed = ParseListenAddress(a);
    if (!parsed.ok()) return Bad("--web.listen-address", parsed.error().message);
    f.listen_addresses.push_back(std::move(parsed.value()));
  }

  const std::string& path = raw.telemetry_path;
  if (path.empty() || path.front() != '/') {
    return Bad("--web.telemetry-path", "must start with \"/\", got \"" + path + "\"");
  }
  if (path.find_first_of(" ?#\t\r\n") != std::string::npos) {
    return Bad("--web.telemetry-path", "must not contain spaces, '?' or '#', got \"" + path + "\"");
  }
  if (ReservedPaths().count(path) != 0) {
    return Bad("--web.telemetry-path", "\"" + path + "\" is reserved for another endpoint");
  }
  f.telemetry_path = path;

  f.web_config_file = raw.web_config_file;
  if (raw.sysfs_path.empty()) return Bad("--path.sysfs", "must not be empty");
  f.sysfs_path = raw.sysfs_path;
  if (raw.procfs_path.empty()) return Bad("--path.procfs", "must not be empty");
  f.procfs_path = raw.procfs_path;
  if (raw.max_requests < 0) {
    return Bad("--web.max-requests",
               "must be 0 (no limit) or more, got " + std::to_string(raw.max_requests));
  }
  f.max_requests = raw.max_requests;

  if (raw.max_connections < 1 || raw.max_connections > 65536) {
    return Bad("--web.max-connections",
               "must be between 1 and 65536, got " + std::to_string(raw.max_connections));
  }
  f.http.max_connections = static_cast<size_t>(raw.max_connections);
  auto timeout = config::ParseDuration(raw.read_timeout);
  if (!timeout || *timeout < std::chrono::milliseconds(100) || *timeout > std::chrono::minutes(5)) {
    return Bad("--web.read-timeout", "invalid value \"" + raw.read_timeout +
                                         "\" (a duration from 100ms to 5m, e.g. 5s)");
  }
  f.http.read_timeout = *timeout;
  auto header_bytes = config::ParseBytes(raw.max_header_bytes);
  if (!header_bytes || *header_bytes < 1024 || *header_bytes > 1024 * 1024) {
    return Bad("--web.max-header-bytes", "invalid value \"" + raw.max_header_bytes +
                                             "\" (1KiB to 1MiB, e.g. 16KiB or 16384)");
  }
  f.http.max_header_bytes = static_cast<size_t>(*header_bytes);
  if (raw.admin_auth == "auto") {
    f.admin_auth = AdminAuth::kAuto;
  } else if (raw.admin_auth == "true") {
    f.admin_auth = AdminAuth::kRequired;
  } else if (raw.admin_auth == "false") {
    f.admin_auth = AdminAuth::kOpen;
  } else {
    return Bad("--web.admin-auth",
               "invalid value \"" + raw.admin_auth + "\" (allowed: auto, true, false)");
  }
  return f;
}

}  // namespace rxe::exporter
