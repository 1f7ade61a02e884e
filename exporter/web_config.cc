#include "exporter/web_config.h"

#include <openssl/ssl.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <regex>

#include "common/file_read.h"

namespace rxe::exporter {
namespace {

constexpr size_t kMaxWebConfigBytes = 1u << 20;

class Parser {
 public:
  Parser(std::string source, std::string base_dir)
      : source_(std::move(source)), base_dir_(std::move(base_dir)) {}

  Error Err(const YAML::Node& node, const std::string& path, const std::string& what) const {
    const YAML::Mark m = node.Mark();
    std::string where = source_;
    if (m.line >= 0) where += ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
    return Error::Make(ErrorCode::kInvalidArgument,
                       where + ": " + (path.empty() ? "" : path + ": ") + what);
  }

  Result<std::string> String(const YAML::Node& node, const std::string& path) const {
    if (!node.IsScalar()) return Err(node, path, "must be a string");
    return node.Scalar();
  }

  std::string Resolve(const std::string& file) const {
    if (file.empty() || base_dir_.empty() || file.front() == '/') return file;
    return (std::filesystem::path(base_dir_) / file).lexically_normal().string();
  }

  Result<int> TlsVersion(const YAML::Node& node, const std::string& path) const {
    auto s = String(node, path);
    if (!s.ok()) return s.error();
    if (*s == "TLS10") return TLS1_VERSION;
    if (*s == "TLS11") return TLS1_1_VERSION;
    if (*s == "TLS12") return TLS1_2_VERSION;
    if (*s == "TLS13") return TLS1_3_VERSION;
    return Err(node, path, "must be one of TLS10, TLS11, TLS12, TLS13, got \"" + *s + "\"");
  }

  Result<ClientAuthType> AuthType(const YAML::Node& node, const std::string& path) const {
    auto s = String(node, path);
    if (!s.ok()) return s.error();
    for (auto t : {ClientAuthType::kNoClientCert, ClientAuthType::kRequestClientCert,
                   ClientAuthType::kRequireAnyClientCert, ClientAuthType::kVerifyClientCertIfGiven,
                   ClientAuthType::kRequireAndVerifyClientCert}) {
      if (*s == ClientAuthTypeName(t)) return t;
    }
    return Err(node, path,
               "must be one of NoClientCert, RequestClientCert, RequireAnyClientCert, "
               "VerifyClientCertIfGiven, RequireAndVerifyClientCert, got \"" +
                   *s + "\"");
  }

  Result<TlsServerConfig> Tls(const YAML::Node& node) const {
    const std::string p = "tls_server_config";
    if (!node.IsMap()) return Err(node, p, "must be a map");
    TlsServerConfig t;
    t.min_version = TLS1_2_VERSION;
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      const std::string kp = p + "." + key;
      const YAML::Node& v = kv.second;
      if (key == "cert_file" || key == "key_file" || key == "client_ca_file") {
        auto s = String(v, kp);
        if (!s.ok()) return s.error();
        (key == "cert_file"  ? t.cert_file
         : key == "key_file" ? t.key_file
                             : t.client_ca_file) = Resolve(*s);
      } else if (key == "client_auth_type") {
        auto a = AuthType(v, kp);
        if (!a.ok()) return a.error();
        t.client_auth = *a;
      } else if (key == "min_version" || key == "max_version") {
        auto ver = TlsVersion(v, kp);
        if (!ver.ok()) return ver.error();
        (key == "min_version" ? t.min_version : t.max_version) = *ver;
      } else if (key == "cert" || key == "key" || key == "client_allowed_sans" ||
                 key == "cipher_suites" || key == "curve_preferences" ||
                 key == "prefer_server_cipher_suites") {
        return Err(kv.first, kp, "not supported by rxe_exporter");
      } else {
        return Err(kv.first, p,
                   "unknown key \"" + key +
                       "\" (allowed: cert_file, key_file, client_auth_type, "
                       "client_ca_file, min_version, max_version)");
      }
    }
    if (t.cert_file.empty()) return Err(node, p + ".cert_file", "required");
    if (t.key_file.empty()) return Err(node, p + ".key_file", "required");
    const bool verifies = t.client_auth == ClientAuthType::kVerifyClientCertIfGiven ||
                          t.client_auth == ClientAuthType::kRequireAndVerifyClientCert;
    if (verifies && t.client_ca_file.empty()) {
      return Err(
          node, p + ".client_ca_file",
          std::string("required with client_auth_type ") + ClientAuthTypeName(t.client_auth));
    }
    if (!verifies && !t.client_ca_file.empty()) {
      return Err(node, p + ".client_ca_file",
                 std::string("set, but client_auth_type ") + ClientAuthTypeName(t.client_auth) +
                     " does not verify client certificates (use VerifyClientCertIfGiven or "
                     "RequireAndVerifyClientCert)");
    }
    if (t.max_version != 0 && t.max_version < t.min_version) {
      return Err(node, p + ".max_version", "is below min_version");
    }
    return t;
  }

  Result<std::map<std::string, std::string>> Users(const YAML::Node& node) const {
    const std::string p = "basic_auth_users";
    if (node.IsNull()) return std::map<std::string, std::string>{};
    if (!node.IsMap()) return Err(node, p, "must be a map of user name to bcrypt hash");
    std::map<std::string, std::string> users;
    for (const auto& kv : node) {
      const std::string user = kv.first.Scalar();
      if (user.empty() || user.find(':') != std::string::npos) {
        return Err(kv.first, p, "user name \"" + user + "\" must be non-empty and without ':'");
      }
      auto hash = String(kv.second, p + "." + user);
      if (!hash.ok()) return hash.error();
      if (!IsBcryptHash(*hash)) {
        return Err(kv.second, p + "." + user,
                   "not a bcrypt hash (expected $2y$, $2b$ or $2a$, a cost and 53 characters; "
                   "generate one with: htpasswd -nBC 10 \"\" | tr -d ':\\n')");
      }
      users[user] = *hash;
    }
    return users;
  }

  Result<WebConfig> Parse(const std::string& yaml) const {
    YAML::Node root;
    try {
      root = YAML::Load(yaml);
    } catch (const YAML::ParserException& e) {
      return Error::Make(ErrorCode::kInvalidArgument,
                         source_ + ":" + std::to_string(e.mark.line + 1) + ":" +
                             std::to_string(e.mark.column + 1) + ": invalid YAML: " + e.msg);
    }
    WebConfig cfg;
    if (root.IsNull()) return cfg;
    if (!root.IsMap()) return Err(root, "", "the web config must be a map");
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (key == "tls_server_config") {
        auto tls = Tls(kv.second);
        if (!tls.ok()) return tls.error();
        cfg.tls = std::move(tls.value());
      } else if (key == "basic_auth_users") {
        auto users = Users(kv.second);
        if (!users.ok()) return users.error();
        cfg.users = std::move(users.value());
      } else if (key == "http_server_config" || key == "rate_limit") {
        return Err(kv.first, key, "not supported by rxe_exporter");
      } else {
        return Err(kv.first, "",
                   "unknown key \"" + key + "\" (allowed: tls_server_config, basic_auth_users)");
      }
    }
    return cfg;
  }

 private:
  std::string source_;
  std::string base_dir_;
};

}  // namespace

const char* ClientAuthTypeName(ClientAuthType t) {
  switch (t) {
    case ClientAuthType::kNoClientCert:
      return "NoClientCert";
    case ClientAuthType::kRequestClientCert:
      return "RequestClientCert";
    case ClientAuthType::kRequireAnyClientCert:
      return "RequireAnyClientCert";
    case ClientAuthType::kVerifyClientCertIfGiven:
      return "VerifyClientCertIfGiven";
    case ClientAuthType::kRequireAndVerifyClientCert:
      return "RequireAndVerifyClientCert";
  }
  return "NoClientCert";
}

bool IsBcryptHash(const std::string& hash) {
  static const std::regex re(R"(^\$2[aby]\$(0[4-9]|[12][0-9]|3[01])\$[./A-Za-z0-9]{53}$)");
  return std::regex_match(hash, re);
}

Result<WebConfig> ParseWebConfig(const std::string& yaml, const std::string& source,
                                 const std::string& base_dir) {
  return Parser(source, base_dir).Parse(yaml);
}

Result<WebConfig> ReadWebConfigFile(const std::string& path) {
  auto text = ReadRegularFile(path, kMaxWebConfigBytes, " (1 MiB), the limit for a web config");
  if (!text.ok()) {  // errno: as before ("cannot read web config P: strerror"); else the reason
    const Error& e = text.error();
    if (e.sys_errno != 0) return Error::FromErrno(e.sys_errno, "cannot read web config " + path);
    return Error::Make(e.code, "cannot read web config " + e.message);
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return ParseWebConfig(*text, path, dir.empty() ? "." : dir);
}

}  // namespace rxe::exporter
