// Reading the daemon's two configuration files: --config.file (with the
// "missing default = built-in defaults" rule) and --web.config.file
// (parsed, then TLS files loaded so that errors show at start and reload).
#pragma once

#include <memory>
#include <string>

#include "common/result.h"
#include "config/model.h"
#include "exporter/flags.h"
#include "exporter/tls_material.h"
#include "exporter/web_config.h"

namespace rxe::exporter {

/// Loads flags.config_file. When it was not given on the command line and
/// the default file does not exist, returns the built-in defaults (logged).
Result<config::Config> LoadDaemonConfig(const Flags& flags);

/// A loaded web config: the parsed file plus the TLS material it names.
struct WebState {
  WebConfig config;
  std::shared_ptr<const TlsMaterial> tls;  // null = plain HTTP
};

/// Reads `path` ("" = no web config: plain HTTP, no auth). Errors start with
/// the file name, e.g. "web.yml: tls_server_config.cert_file: cannot read ...".
Result<WebState> LoadWebState(const std::string& path);

}  // namespace rxe::exporter
