// TLS, mutual TLS and basic auth through --web.config.file, end to end.
#include <gtest/gtest.h>
#include <httplib.h>

#include <sys/socket.h>
#include <cerrno>
#include <unistd.h>

#include <filesystem>
#include <vector>

#include "exporter/cli.h"
#include "tests/exporter/test_util.h"

namespace rxe::exporter {
namespace {

using testing::TempDir;
using testing::WriteFile;

class WebConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = dir_.File("rxe_exporter.yml");
    web_ = dir_.File("web.yml");
    WriteFile(config_, testing::TestConfigYaml());
    pki_ = testing::MakeTestPki(dir_.path());
  }
  void Start(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"--config.file", config_, "--web.config.file", web_,
                                  "--web.listen-address=127.0.0.1:0", "--path.sysfs",
                                  std::string(RXE_FIXTURES_DIR) + "/sys"};
    args.insert(args.end(), extra.begin(), extra.end());
    app_ = testing::StartApp(args);
  }
  int port() const { return app_->BoundPorts().at(0); }
  std::unique_ptr<httplib::SSLClient> Tls(const std::string& ca, const std::string& cert = "",
                                          const std::string& key = "") {
    auto cli = cert.empty() ? std::make_unique<httplib::SSLClient>("127.0.0.1", port())
                            : std::make_unique<httplib::SSLClient>("127.0.0.1", port(), cert, key);
    cli->set_ca_cert_path(ca.c_str());
    cli->enable_server_certificate_verification(true);
    cli->set_connection_timeout(2, 0);
    cli->set_read_timeout(2, 0);
    return cli;
  }
  std::string TlsYaml(const std::string& extra = "") {
    return "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n" + extra;
  }

  TempDir dir_;
  std::string config_, web_;
  testing::TestPki pki_;
  std::unique_ptr<App> app_;
};

TEST_F(WebConfigTest, ServesTlsVerifiedByTheTestCa) {
  WriteFile(web_, TlsYaml());
  Start();
  auto cli = Tls(pki_.ca_cert);
  auto res = cli->Get("/metrics");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_NE(res->body.find("rxe_exporter_build_info"), std::string::npos);

  auto wrong_ca = Tls(pki_.other_ca_cert);
  EXPECT_FALSE(wrong_ca->Get("/metrics")) << "the server certificate is not from other-ca";

  httplib::Client plain("127.0.0.1", port());
  plain.set_read_timeout(2, 0);
  auto res_plain = plain.Get("/metrics");
  EXPECT_TRUE(!res_plain || res_plain->status != 200) << "plain HTTP on a TLS port must fail";
}

TEST_F(WebConfigTest, MutualTlsRequiresAClientCertificateFromTheCa) {
  WriteFile(web_, TlsYaml("  client_auth_type: RequireAndVerifyClientCert\n"
                          "  client_ca_file: ca.crt\n"));
  Start();
  auto with_cert = Tls(pki_.ca_cert, pki_.client_cert, pki_.client_key);
  auto ok = with_cert->Get("/metrics");
  ASSERT_TRUE(ok) << httplib::to_string(ok.error());
  EXPECT_EQ(ok->status, 200);

  auto without = Tls(pki_.ca_cert);
  EXPECT_FALSE(without->Get("/metrics")) << "no client certificate";
  auto foreign = Tls(pki_.ca_cert, pki_.other_client_cert, pki_.other_client_key);
  EXPECT_FALSE(foreign->Get("/metrics")) << "client certificate from an untrusted CA";
}

TEST_F(WebConfigTest, TlsMinVersion13RejectsTls12Clients) {
  WriteFile(web_, TlsYaml("  min_version: TLS13\n"));
  Start();
  auto cli = Tls(pki_.ca_cert);
  ASSERT_TRUE(cli->Get("/-/healthy"));
  // A TLS 1.2-only client fails the handshake.
  httplib::SSLClient old("127.0.0.1", port());
  old.enable_server_certificate_verification(false);
  SSL_CTX_set_max_proto_version(old.ssl_context(), TLS1_2_VERSION);
  EXPECT_FALSE(old.Get("/-/healthy"));
}

TEST_F(WebConfigTest, BasicAuth) {
  WriteFile(web_, "basic_auth_users:\n  alice: " + testing::BcryptHash("wonderland") + "\n");
  Start();
  httplib::Client cli("127.0.0.1", port());
  auto anon = cli.Get("/metrics");
  ASSERT_TRUE(anon);
  EXPECT_EQ(anon->status, 401);
  EXPECT_EQ(anon->get_header_value("WWW-Authenticate"),
            "Basic realm=\"rxe_exporter\", charset=\"UTF-8\"");
  EXPECT_EQ(cli.Get("/")->status, 401);
  EXPECT_EQ(cli.Get("/-/ready")->status, 401);
  EXPECT_EQ(cli.Post("/-/reload")->status, 401);
  EXPECT_EQ(cli.Get("/-/healthy")->status, 200) << "health checks need no credentials";

  cli.set_basic_auth("alice", "wrong");
  EXPECT_EQ(cli.Get("/metrics")->status, 401);
  cli.set_basic_auth("bob", "wonderland");
  EXPECT_EQ(cli.Get("/metrics")->status, 401);
  cli.set_basic_auth("alice", "wonderland");
  EXPECT_EQ(cli.Get("/metrics")->status, 200);
  EXPECT_EQ(cli.Get("/metrics")->status, 200);
}

TEST_F(WebConfigTest, ReloadRereadsUsersAndCertificates) {
  WriteFile(web_, TlsYaml("basic_auth_users:\n  alice: " + testing::BcryptHash("one") + "\n"));
  Start();
  auto cli = Tls(pki_.ca_cert);
  cli->set_basic_auth("alice", "one");
  ASSERT_EQ(cli->Get("/metrics")->status, 200);

  // New password and a server certificate from a new CA.
  TempDir next;
  auto pki2 = testing::MakeTestPki(next.path());
  WriteFile(web_, "tls_server_config:\n  cert_file: " + pki2.server_cert +
                      "\n  key_file: " + pki2.server_key +
                      "\nbasic_auth_users:\n  alice: " + testing::BcryptHash("two") + "\n");
  ASSERT_TRUE(app_->Reload("test").ok());

  auto old_ca = Tls(pki_.ca_cert);
  EXPECT_FALSE(old_ca->Get("/-/healthy")) << "the new certificate is served";
  auto cli2 = Tls(pki2.ca_cert);
  cli2->set_basic_auth("alice", "one");
  EXPECT_EQ(cli2->Get("/metrics")->status, 401);
  cli2->set_basic_auth("alice", "two");
  EXPECT_EQ(cli2->Get("/metrics")->status, 200);
}

TEST_F(WebConfigTest, ReloadCannotSwitchTlsOffAndKeepsServing) {
  WriteFile(web_, TlsYaml());
  Start();
  WriteFile(web_, "basic_auth_users: {}\n");
  Status st = app_->Reload("test");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, web_ +
                                    ": tls_server_config was added or removed; restart "
                                    "rxe_exporter to switch between HTTP and HTTPS");
  auto cli = Tls(pki_.ca_cert);
  auto res = cli->Get("/metrics");
  ASSERT_TRUE(res);
  EXPECT_NE(res->body.find("rxe_exporter_config_last_reload_successful 0\n"), std::string::npos);
}

TEST_F(WebConfigTest, InvalidWebConfigFailsStart) {
  WriteFile(web_, TlsYaml("  bogus: 1\n"));
  CommandLine cl = ParseCommandLine(
      {"--config.file", config_, "--web.config.file", web_, "--web.listen-address=127.0.0.1:0"});
  App app(cl.flags);
  Status st = app.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            web_ +
                ":4:3: tls_server_config: unknown key \"bogus\" (allowed: cert_file, key_file, "
                "client_auth_type, client_ca_file, min_version, max_version)");
}

// Issue 17 item 1 over TLS: connections that never finish their handshake are
// closed at the read deadline and do not hold up TLS clients.
TEST_F(WebConfigTest, SilentTlsConnectionsAreClosedAndDoNotBlockOthers) {
  WriteFile(web_, TlsYaml());
  Start({"--web.read-timeout=1s"});
  std::vector<int> silent;
  for (int i = 0; i < 16; ++i) {
    const int fd = testing::ConnectLoopback(port());
    ASSERT_GE(fd, 0);
    silent.push_back(fd);
  }
  auto res = Tls(pki_.ca_cert)->Get("/metrics");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  for (int fd : silent) {
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char c;
    const ssize_t n = recv(fd, &c, 1, 0);
    const bool timed_out = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
    EXPECT_TRUE(n == 0 || (n < 0 && !timed_out)) << "not closed within 5 s (1 s read timeout)";
    close(fd);
  }
}

}  // namespace
}  // namespace rxe::exporter
