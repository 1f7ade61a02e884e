#include "exporter/tls_material.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>


#include "common/file_read.h"

namespace rxe::exporter {
namespace {

using BioPtr = std::unique_ptr<BIO, decltype(&BIO_free)>;
constexpr size_t kMaxPemBytes = 1u << 20;

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "no PEM data found";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  return buf;
}

Error Fail(const std::string& key, const std::string& file, const std::string& what) {
  return Error::Make(ErrorCode::kInvalidArgument,
                     "tls_server_config." + key + ": \"" + file + "\": " + what);
}

Result<BioPtr> Open(const std::string& key, const std::string& file) {
  // Never blocks (a FIFO given as a key file would hang the reload) and bounded in size.
  auto text = ReadRegularFile(file, kMaxPemBytes, " (1 MiB), too large for PEM material");
  if (!text.ok()) {
    const Error& e = text.error();
    const std::string what = "tls_server_config." + key + ": cannot read \"" + file + "\"";
    if (e.sys_errno != 0) return Error::FromErrno(e.sys_errno, what);
    return Error::Make(e.code, what + ": " + e.message);
  }
  BioPtr bio(BIO_new(BIO_s_mem()), &BIO_free);
  if (!bio || BIO_write(bio.get(), text->data(), static_cast<int>(text->size())) !=
                  static_cast<int>(text->size())) {
    return Fail(key, file, "out of memory");
  }
  return bio;
}

int AcceptAnyCertificate(int, X509_STORE_CTX*) { return 1; }

}  // namespace

TlsMaterial::~TlsMaterial() {
  X509_free(cert_);
  if (chain_ != nullptr) sk_X509_pop_free(chain_, X509_free);
  EVP_PKEY_free(key_);
  X509_STORE_free(ca_store_);
  if (ca_names_ != nullptr) sk_X509_NAME_pop_free(ca_names_, X509_NAME_free);
}

Result<std::shared_ptr<const TlsMaterial>> TlsMaterial::Load(const TlsServerConfig& cfg) {
  std::shared_ptr<TlsMaterial> m(new TlsMaterial());
  ERR_clear_error();
  {
    auto bio = Open("cert_file", cfg.cert_file);
    if (!bio.ok()) return bio.error();
    m->cert_ = PEM_read_bio_X509_AUX(bio->get(), nullptr, nullptr, nullptr);
    if (m->cert_ == nullptr)
      return Fail("cert_file", cfg.cert_file, "no certificate: " + OpenSslError());
    m->chain_ = sk_X509_new_null();
    while (X509* extra = PEM_read_bio_X509(bio->get(), nullptr, nullptr, nullptr)) {
      sk_X509_push(m->chain_, extra);
    }
    ERR_clear_error();  // the loop ends with "no start line"
  }
  {
    auto bio = Open("key_file", cfg.key_file);
    if (!bio.ok()) return bio.error();
    m->key_ = PEM_read_bio_PrivateKey(bio->get(), nullptr, nullptr, nullptr);
    if (m->key_ == nullptr)
      return Fail("key_file", cfg.key_file, "no private key: " + OpenSslError());
    if (X509_check_private_key(m->cert_, m->key_) != 1) {
      ERR_clear_error();
      return Fail("key_file", cfg.key_file, "does not match the certificate in cert_file");
    }
  }
  if (!cfg.client_ca_file.empty()) {
    auto bio = Open("client_ca_file", cfg.client_ca_file);  // readable? (clear errno message)
    if (!bio.ok()) return bio.error();
    m->ca_store_ = X509_STORE_new();
    if (X509_STORE_load_file(m->ca_store_, cfg.client_ca_file.c_str()) != 1) {
      return Fail("client_ca_file", cfg.client_ca_file, "no CA certificates: " + OpenSslError());
    }
    m->ca_names_ = SSL_load_client_CA_file(cfg.client_ca_file.c_str());
    ERR_clear_error();
  }
  switch (cfg.client_auth) {
    case ClientAuthType::kNoClientCert:
      m->verify_mode_ = SSL_VERIFY_NONE;
      break;
    case ClientAuthType::kRequestClientCert:
      m->verify_mode_ = SSL_VERIFY_PEER;
      m->verify_any_ = true;
      break;
    case ClientAuthType::kRequireAnyClientCert:
      m->verify_mode_ = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      m->verify_any_ = true;
      break;
    case ClientAuthType::kVerifyClientCertIfGiven:
      m->verify_mode_ = SSL_VERIFY_PEER;
      break;
    case ClientAuthType::kRequireAndVerifyClientCert:
      m->verify_mode_ = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
      break;
  }
  m->min_version_ = cfg.min_version;
  m->max_version_ = cfg.max_version;
  return std::shared_ptr<const TlsMaterial>(std::move(m));
}

bool TlsMaterial::ApplyTo(SSL* ssl) const {
  if (SSL_use_cert_and_key(ssl, cert_, key_, chain_, 1) != 1) return false;
  SSL_set_verify(ssl, verify_mode_, verify_any_ ? AcceptAnyCertificate : nullptr);
  if (ca_store_ != nullptr && SSL_set1_verify_cert_store(ssl, ca_store_) != 1) return false;
  if (ca_names_ != nullptr) SSL_set_client_CA_list(ssl, SSL_dup_CA_list(ca_names_));
  return SSL_set_min_proto_version(ssl, min_version_) == 1 &&
         SSL_set_max_proto_version(ssl, max_version_) == 1;
}

bool TlsMaterial::ApplyTo(SSL_CTX* ctx) const {
  if (SSL_CTX_use_cert_and_key(ctx, cert_, key_, chain_, 1) != 1) return false;
  SSL_CTX_set_verify(ctx, verify_mode_, verify_any_ ? AcceptAnyCertificate : nullptr);
  if (ca_store_ != nullptr && SSL_CTX_set1_verify_cert_store(ctx, ca_store_) != 1) return false;
  if (ca_names_ != nullptr) SSL_CTX_set_client_CA_list(ctx, SSL_dup_CA_list(ca_names_));
  return SSL_CTX_set_min_proto_version(ctx, min_version_) == 1 &&
         SSL_CTX_set_max_proto_version(ctx, max_version_) == 1;
}

void TlsState::Set(std::shared_ptr<const TlsMaterial> material) {
  std::lock_guard<std::mutex> lock(mu_);
  material_ = std::move(material);
}

std::shared_ptr<const TlsMaterial> TlsState::Get() const {
  std::lock_guard<std::mutex> lock(mu_);
  return material_;
}

bool TlsState::SetupContext(SSL_CTX& ctx) {
  static const unsigned char kSessionContext[] = "rxe_exporter";
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_session_id_context(&ctx, kSessionContext, sizeof kSessionContext - 1);
  auto material = Get();
  if (!material || !material->ApplyTo(&ctx)) return false;
  SSL_CTX_set_client_hello_cb(
      &ctx,
      [](SSL* ssl, int* alert, void* arg) -> int {
        auto current = static_cast<TlsState*>(arg)->Get();
        if (current && current->ApplyTo(ssl)) return SSL_CLIENT_HELLO_SUCCESS;
        *alert = SSL_AD_INTERNAL_ERROR;
        return SSL_CLIENT_HELLO_ERROR;
      },
      this);
  return true;
}

}  // namespace rxe::exporter
