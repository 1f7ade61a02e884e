// Daemon flags in exporter-toolkit style. CLI11 binds the raw strings
// (RawFlags); ValidateFlags turns them into typed Flags with exact messages.
#pragma once

#include <string>
#include <vector>

#include "common/log.h"
#include "common/result.h"
#include "exporter/http_limits.h"
#include "exporter/listen_address.h"

namespace CLI {
class App;
}

namespace rxe::exporter {

inline constexpr const char* kDefaultConfigFile = "/etc/rxe_exporter/rxe_exporter.yml";
inline constexpr const char* kDefaultListenAddress = ":19791";

/// Values exactly as given on the command line.
struct RawFlags {
  std::string config_file = kDefaultConfigFile;
  bool config_file_given = false;  // set after parsing from the option's count()
  bool config_check = false;
  std::vector<std::string> listen_addresses;  // empty = {kDefaultListenAddress}
  std::string telemetry_path = "/metrics";
  std::string web_config_file;
  std::string sysfs_path = "/sys";
  std::string procfs_path = "/proc";
  int max_requests = 4;
  int max_connections = 64;
  std::string read_timeout = "5s";
  std::string max_header_bytes = "16KiB";
  std::string admin_auth = "auto";
  std::string log_level = "info";
  std::string log_format = "logfmt";
  bool version = false;
};

/// Who may use /-/reload and /debug/probes (--web.admin-auth).
enum class AdminAuth {
  kAuto,      // kRequired when basic_auth_users is set, else kOpen
  kRequired,  // valid basic-auth credentials; refused (403) when no users are set
  kOpen,      // no credentials, even when basic auth protects the other endpoints
};

/// Validated flags.
struct Flags {
  std::string config_file = kDefaultConfigFile;
  /// False when --config.file was not given: a missing default file then
  /// means "run with built-in defaults" instead of an error.
  bool config_file_given = false;
  bool config_check = false;
  std::vector<ListenAddress> listen_addresses;
  std::string telemetry_path = "/metrics";
  std::string web_config_file;  // empty = no TLS, no basic auth
  std::string sysfs_path = "/sys";
  std::string procfs_path = "/proc";  // host collector, doctor checks
  int max_requests = 4;  // concurrent telemetry and admin requests; 0 = unlimited
  HttpLimits http;       // per listener: connections, read timeout, header size
  AdminAuth admin_auth = AdminAuth::kAuto;
  log::Level log_level = log::Level::kInfo;
  log::Format log_format = log::Format::kLogfmt;
};

/// Registers the daemon's flags on `app` (the root command). Subcommands
/// (sweep, doctor) are added next to them in cli.cc; give them `fallthrough()`
/// so that root flags such as --log.level may also follow the subcommand.
void AddDaemonFlags(CLI::App& app, RawFlags& raw);

/// Call after a successful parse: records which optional flags were given.
void RecordGivenFlags(const CLI::App& app, RawFlags& raw);

/// Checks every value; the error message names the flag, the bad value and
/// what is allowed, e.g.
///   --log.level: invalid value "verbose" (allowed: debug, info, warn, error)
Result<Flags> ValidateFlags(const RawFlags& raw);

}  // namespace rxe::exporter
