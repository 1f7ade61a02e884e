// OpenSSL side of tls_server_config: loads certificate, key and client CAs
// (validated at start and on reload) and applies them to every new TLS
// connection, so a reload rotates certificates without re-binding sockets.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <mutex>

#include "common/result.h"
#include "exporter/web_config.h"

namespace rxe::exporter {

/// Immutable, loaded TLS settings (owns its OpenSSL objects).
class TlsMaterial {
 public:
  ~TlsMaterial();
  TlsMaterial(const TlsMaterial&) = delete;
  TlsMaterial& operator=(const TlsMaterial&) = delete;

  /// Reads the files named by `cfg`; errors name the key and the file, e.g.
  ///   tls_server_config.key_file: "/etc/x.key" does not match the certificate in cert_file
  static Result<std::shared_ptr<const TlsMaterial>> Load(const TlsServerConfig& cfg);

  /// Applies certificate, key, client verification and protocol versions to `ssl`.
  bool ApplyTo(SSL* ssl) const;
  /// Applies the same to a context (defaults for connections).
  bool ApplyTo(SSL_CTX* ctx) const;

 private:
  TlsMaterial() = default;

  X509* cert_ = nullptr;
  STACK_OF(X509) * chain_ = nullptr;
  EVP_PKEY* key_ = nullptr;
  X509_STORE* ca_store_ = nullptr;
  STACK_OF(X509_NAME) * ca_names_ = nullptr;
  int verify_mode_ = SSL_VERIFY_NONE;
  bool verify_any_ = false;  // request/require a certificate without verifying it
  int min_version_ = 0;
  int max_version_ = 0;
};

/// The TLS material currently in use; shared by all TLS listeners.
class TlsState {
 public:
  explicit TlsState(std::shared_ptr<const TlsMaterial> material) : material_(std::move(material)) {}
  void Set(std::shared_ptr<const TlsMaterial> material);
  std::shared_ptr<const TlsMaterial> Get() const;
  /// Setup callback for httplib::SSLServer: defaults plus a ClientHello hook
  /// that applies the current material to each connection.
  bool SetupContext(SSL_CTX& ctx);

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const TlsMaterial> material_;
};

}  // namespace rxe::exporter
