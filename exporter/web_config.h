// The Prometheus web-config file (exporter-toolkit format), parsed and
// validated without touching OpenSSL (tls_material.h loads the files):
//
//   tls_server_config:
//     cert_file: server.crt            # relative paths: relative to this file
//     key_file: server.key
//     client_auth_type: RequireAndVerifyClientCert
//     client_ca_file: ca.crt
//     min_version: TLS12               # TLS10..TLS13, default TLS12
//     max_version: TLS13               # optional
//   basic_auth_users:
//     alice: $2y$10$...                # bcrypt (htpasswd -nBC 10 "" | tr -d ':\n')
#pragma once

#include <map>
#include <optional>
#include <string>

#include "common/result.h"

namespace rxe::exporter {

enum class ClientAuthType {
  kNoClientCert,
  kRequestClientCert,           // ask for a certificate, do not verify it
  kRequireAnyClientCert,        // require one, do not verify it
  kVerifyClientCertIfGiven,     // verify against client_ca_file if sent
  kRequireAndVerifyClientCert,  // require and verify (mTLS)
};

const char* ClientAuthTypeName(ClientAuthType t);

struct TlsServerConfig {
  std::string cert_file;  // absolute (resolved against the web config's directory)
  std::string key_file;
  ClientAuthType client_auth = ClientAuthType::kNoClientCert;
  std::string client_ca_file;  // empty = none
  int min_version = 0;         // OpenSSL TLS1_x_VERSION; set by the parser (default TLS 1.2)
  int max_version = 0;         // 0 = highest supported

  bool operator==(const TlsServerConfig&) const = default;
};

struct WebConfig {
  std::optional<TlsServerConfig> tls;
  std::map<std::string, std::string> users;  // user -> bcrypt hash; empty = no basic auth
};

/// Parses `yaml`. Errors are "<source>:<line>:<col>: <key path>: <what>".
/// Relative file names are resolved against `base_dir` ("" = keep as is).
Result<WebConfig> ParseWebConfig(const std::string& yaml, const std::string& source,
                                 const std::string& base_dir);

/// Reads and parses `path` (relative file names resolve against its directory).
Result<WebConfig> ReadWebConfigFile(const std::string& path);

/// True for a well-formed bcrypt hash ($2a$, $2b$ or $2y$, cost 04-31).
bool IsBcryptHash(const std::string& hash);

}  // namespace rxe::exporter
