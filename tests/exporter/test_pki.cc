// Test certificates generated with OpenSSL APIs: a CA, a server certificate
// for 127.0.0.1/::1/localhost, a client certificate, and a second CA with a
// client certificate the server must reject.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

#include "tests/exporter/test_util.h"

namespace rxe::exporter::testing {
namespace {

using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using CertPtr = std::unique_ptr<X509, decltype(&X509_free)>;

KeyPtr NewKey() {
  KeyPtr key(EVP_EC_gen("P-256"), &EVP_PKEY_free);
  if (!key) throw std::runtime_error("EVP_EC_gen failed");
  return key;
}

void AddExt(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) throw std::runtime_error("X509V3_EXT_conf_nid failed");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

/// Issues a certificate for `key`; self-signed when issuer is null.
CertPtr Issue(EVP_PKEY* key, const char* cn, X509* issuer, EVP_PKEY* issuer_key, bool ca,
              const char* sans, const char* eku) {
  static long serial = 1;
  CertPtr cert(X509_new(), &X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial++);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 86400);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn),
                             -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : cert.get();
  X509_set_issuer_name(cert.get(), X509_get_subject_name(signer));
  if (ca) {
    AddExt(cert.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    AddExt(cert.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    AddExt(cert.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    AddExt(cert.get(), signer, NID_key_usage, "critical,digitalSignature");
    AddExt(cert.get(), signer, NID_ext_key_usage, eku);
  }
  if (sans != nullptr) AddExt(cert.get(), signer, NID_subject_alt_name, sans);
  if (X509_sign(cert.get(), issuer_key != nullptr ? issuer_key : key, EVP_sha256()) == 0) {
    throw std::runtime_error("X509_sign failed");
  }
  return cert;
}

void WritePem(const std::string& path, X509* cert) {
  FILE* f = std::fopen(path.c_str(), "w");
  PEM_write_X509(f, cert);
  std::fclose(f);
}

void WritePem(const std::string& path, EVP_PKEY* key) {
  FILE* f = std::fopen(path.c_str(), "w");
  PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
}

}  // namespace

TestPki MakeTestPki(const std::string& dir) {
  TestPki p;
  p.ca_cert = dir + "/ca.crt";
  p.server_cert = dir + "/server.crt";
  p.server_key = dir + "/server.key";
  p.client_cert = dir + "/client.crt";
  p.client_key = dir + "/client.key";
  p.other_ca_cert = dir + "/other-ca.crt";
  p.other_client_cert = dir + "/other-client.crt";
  p.other_client_key = dir + "/other-client.key";

  KeyPtr ca_key = NewKey();
  CertPtr ca = Issue(ca_key.get(), "rxe test CA", nullptr, nullptr, true, nullptr, nullptr);
  KeyPtr server_key = NewKey();
  CertPtr server = Issue(server_key.get(), "localhost", ca.get(), ca_key.get(), false,
                         "DNS:localhost,IP:127.0.0.1,IP:::1", "serverAuth");
  KeyPtr client_key = NewKey();
  CertPtr client =
      Issue(client_key.get(), "scraper", ca.get(), ca_key.get(), false, nullptr, "clientAuth");
  KeyPtr other_ca_key = NewKey();
  CertPtr other_ca =
      Issue(other_ca_key.get(), "other CA", nullptr, nullptr, true, nullptr, nullptr);
  KeyPtr other_client_key = NewKey();
  CertPtr other_client = Issue(other_client_key.get(), "intruder", other_ca.get(),
                               other_ca_key.get(), false, nullptr, "clientAuth");

  WritePem(p.ca_cert, ca.get());
  WritePem(p.server_cert, server.get());
  WritePem(p.server_key, server_key.get());
  WritePem(p.client_cert, client.get());
  WritePem(p.client_key, client_key.get());
  WritePem(p.other_ca_cert, other_ca.get());
  WritePem(p.other_client_cert, other_client.get());
  WritePem(p.other_client_key, other_client_key.get());
  return p;
}

}  // namespace rxe::exporter::testing
