#include "exporter/web_config.h"

#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <sys/stat.h>

#include "exporter/config_source.h"
#include "tests/exporter/test_util.h"

namespace rxe::exporter {
namespace {

using testing::TempDir;
using testing::WriteFile;

const char kHash[] = "$2y$10$Ve5ncdYYy4UuwyAcdsqBxuXfo/uUHpEdm2n6kbBqBgiuhTa5PrhDq";

TEST(WebConfig, EmptyFileMeansNothing) {
  auto c = ParseWebConfig("", "web.yml", "");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->tls);
  EXPECT_TRUE(c->users.empty());
}

TEST(WebConfig, FullFile) {
  auto c = ParseWebConfig(std::string("tls_server_config:\n"
                                      "  cert_file: server.crt\n"
                                      "  key_file: /abs/server.key\n"
                                      "  client_auth_type: RequireAndVerifyClientCert\n"
                                      "  client_ca_file: ca/ca.crt\n"
                                      "  min_version: TLS13\n"
                                      "basic_auth_users:\n"
                                      "  alice: ") +
                              kHash + "\n",
                          "web.yml", "/etc/rxe");
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->tls);
  EXPECT_EQ(c->tls->cert_file, "/etc/rxe/server.crt");
  EXPECT_EQ(c->tls->key_file, "/abs/server.key");
  EXPECT_EQ(c->tls->client_ca_file, "/etc/rxe/ca/ca.crt");
  EXPECT_EQ(c->tls->client_auth, ClientAuthType::kRequireAndVerifyClientCert);
  EXPECT_EQ(c->tls->min_version, TLS1_3_VERSION);
  EXPECT_EQ(c->tls->max_version, 0);
  ASSERT_EQ(c->users.size(), 1u);
  EXPECT_EQ(c->users.at("alice"), kHash);
}

TEST(WebConfig, DefaultMinVersionIsTls12) {
  auto c = ParseWebConfig("tls_server_config: {cert_file: a, key_file: b}\n", "w.yml", "");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->tls->min_version, TLS1_2_VERSION);
  EXPECT_EQ(c->tls->client_auth, ClientAuthType::kNoClientCert);
}

struct BadCase {
  std::string yaml, message;
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.yaml; }

class WebConfigBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(WebConfigBad, ExactMessage) {
  auto c = ParseWebConfig(GetParam().yaml, "web.yml", "");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    All, WebConfigBad,
    ::testing::Values(
        BadCase{"foo: 1\n",
                "web.yml:1:1: unknown key \"foo\" (allowed: tls_server_config, basic_auth_users)"},
        BadCase{"- a\n", "web.yml:1:1: the web config must be a map"},
        BadCase{"tls_server_config: [\n",
                "web.yml:2:1: invalid YAML: end of sequence flow not found"},
        BadCase{"http_server_config:\n  http2: false\n",
                "web.yml:1:1: http_server_config: not supported by rxe_exporter"},
        BadCase{"tls_server_config:\n  key_file: k\n",
                "web.yml:2:3: tls_server_config.cert_file: required"},
        BadCase{"tls_server_config:\n  cert_file: c\n",
                "web.yml:2:3: tls_server_config.key_file: required"},
        BadCase{"tls_server_config:\n  cert_file: c\n  key_file: k\n  certfile: x\n",
                "web.yml:4:3: tls_server_config: unknown key \"certfile\" (allowed: cert_file, "
                "key_file, client_auth_type, client_ca_file, min_version, max_version)"},
        BadCase{"tls_server_config:\n  cert_file: [a]\n",
                "web.yml:2:14: tls_server_config.cert_file: must be a string"},
        BadCase{"tls_server_config:\n  cipher_suites: [x]\n",
                "web.yml:2:3: tls_server_config.cipher_suites: not supported by rxe_exporter"},
        BadCase{"tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS9\n",
                "web.yml:4:16: tls_server_config.min_version: must be one of TLS10, TLS11, TLS12, "
                "TLS13, got \"TLS9\""},
        BadCase{"tls_server_config:\n  cert_file: c\n  key_file: k\n  min_version: TLS13\n"
                "  max_version: TLS12\n",
                "web.yml:2:3: tls_server_config.max_version: is below min_version"},
        BadCase{"tls_server_config:\n  cert_file: c\n  key_file: k\n  client_auth_type: Always\n",
                "web.yml:4:21: tls_server_config.client_auth_type: must be one of NoClientCert, "
                "RequestClientCert, RequireAnyClientCert, VerifyClientCertIfGiven, "
                "RequireAndVerifyClientCert, got \"Always\""},
        BadCase{"tls_server_config:\n  cert_file: c\n  key_file: k\n"
                "  client_auth_type: RequireAndVerifyClientCert\n",
                "web.yml:2:3: tls_server_config.client_ca_file: required with client_auth_type "
                "RequireAndVerifyClientCert"},
        BadCase{"tls_server_config:\n  cert_file: c\n  key_file: k\n  client_ca_file: ca\n",
                "web.yml:2:3: tls_server_config.client_ca_file: set, but client_auth_type "
                "NoClientCert does not verify client certificates (use VerifyClientCertIfGiven or "
                "RequireAndVerifyClientCert)"},
        BadCase{"basic_auth_users: [alice]\n",
                "web.yml:1:19: basic_auth_users: must be a map of user name to bcrypt hash"},
        BadCase{"basic_auth_users:\n  alice: secret\n",
                "web.yml:2:10: basic_auth_users.alice: not a bcrypt hash (expected $2y$, $2b$ or "
                "$2a$, a cost and 53 characters; generate one with: htpasswd -nBC 10 \"\" | tr -d "
                "':\\n')"},
        BadCase{
            std::string("basic_auth_users:\n  \"a:b\": ") + kHash + "\n",
            "web.yml:2:3: basic_auth_users: user name \"a:b\" must be non-empty and without ':'"}));

TEST(WebConfig, BcryptHashFormat) {
  EXPECT_TRUE(IsBcryptHash(kHash));
  EXPECT_TRUE(IsBcryptHash("$2b$04$" + std::string(53, 'a')));
  EXPECT_FALSE(IsBcryptHash("$2y$10$" + std::string(52, 'a')));
  EXPECT_FALSE(IsBcryptHash("$2y$03$" + std::string(53, 'a')));
  EXPECT_FALSE(IsBcryptHash("$1$abc$def"));
  EXPECT_FALSE(IsBcryptHash(""));
}

TEST(WebConfigFile, MissingFile) {
  auto c = ReadWebConfigFile("/nonexistent/web.yml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message,
            "cannot read web config /nonexistent/web.yml: No such file or directory");
}

TEST(WebConfigFile, RelativePathsAndTlsErrors) {
  TempDir dir;
  auto pki = testing::MakeTestPki(dir.path());
  const std::string web = dir.File("web.yml");

  WriteFile(web, "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n");
  auto ok = LoadWebState(web);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->config.tls->cert_file, pki.server_cert);
  EXPECT_TRUE(ok->tls);

  WriteFile(web, "tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n");
  auto missing = LoadWebState(web);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, web + ": tls_server_config.cert_file: cannot read \"" +
                                         dir.File("missing.crt") + "\": No such file or directory");

  // A FIFO as key file (nothing writes to it) is an error, not a reload that never returns.
  ASSERT_EQ(::mkfifo(dir.File("fifo.key").c_str(), 0600), 0);
  WriteFile(web, "tls_server_config:\n  cert_file: server.crt\n  key_file: fifo.key\n");
  auto fifo = LoadWebState(web);
  ASSERT_FALSE(fifo.ok());
  EXPECT_EQ(fifo.error().message, web + ": tls_server_config.key_file: cannot read \"" +
                                      dir.File("fifo.key") + "\": " + dir.File("fifo.key") +
                                      ": is a FIFO, not a regular file; give the path of a file");
  auto fifo_web = ReadWebConfigFile(dir.File("fifo.key"));
  ASSERT_FALSE(fifo_web.ok());
  EXPECT_EQ(fifo_web.error().message, "cannot read web config " + dir.File("fifo.key") +
                                          ": is a FIFO, not a regular file; give the path of a file");

  WriteFile(web, "tls_server_config:\n  cert_file: server.crt\n  key_file: client.key\n");
  auto mismatch = LoadWebState(web);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.error().message, web + ": tls_server_config.key_file: \"" + pki.client_key +
                                          "\": does not match the certificate in cert_file");

  WriteFile(web, "tls_server_config:\n  cert_file: server.key\n  key_file: server.key\n");
  auto not_cert = LoadWebState(web);
  ASSERT_FALSE(not_cert.ok());
  EXPECT_EQ(
      not_cert.error().message.rfind(
          web + ": tls_server_config.cert_file: \"" + pki.server_key + "\": no certificate: ", 0),
      0u)
      << not_cert.error().message;
}

}  // namespace
}  // namespace rxe::exporter
