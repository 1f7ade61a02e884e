// Endpoint behaviour with fake handlers on a real HttpServer.
#include "exporter/routes.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "exporter/http_server.h"
#include "tests/exporter/test_util.h"

namespace rxe::exporter {
namespace {

class RoutesTest : public ::testing::Test {
 protected:
  void Start() {
    server_ = std::make_unique<HttpServer>(*ParseListenAddress("127.0.0.1:0"), nullptr);
    InstallRoutes(server_->server(), ep_);
    ASSERT_TRUE(server_->Bind().ok());
    server_->Start();
  }
  httplib::Client Client() { return httplib::Client("127.0.0.1", server_->port()); }

  std::shared_ptr<Endpoints> ep_ = [] {
    auto ep = std::make_shared<Endpoints>();
    ep->metrics = [] { return std::string("m 1\n"); };
    ep->ready = [] { return true; };
    ep->reload = [] { return Status::Ok(); };
    ep->debug_probes = [] { return std::string("{}"); };
    ep->debug_ud_mesh = [] { return std::string("{\"pairs\":[]}"); };
    return ep;
  }();
  std::unique_ptr<HttpServer> server_;
};

TEST_F(RoutesTest, NotReadyIs503) {
  ep_->ready = [] { return false; };
  Start();
  auto res = Client().Get("/-/ready");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  EXPECT_EQ(res->body, "Not ready\n");
}

TEST_F(RoutesTest, ReloadErrorIs500WithText) {
  ep_->reload = [] { return Status(Error::Make(ErrorCode::kInvalidArgument, "x.yml:1:1: bad")); };
  Start();
  auto res = Client().Post("/-/reload");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 500);
  EXPECT_EQ(res->body, "failed to reload config: x.yml:1:1: bad\n");
}

/// Sends `request` on a new TCP connection and returns what arrives within 2 s.
std::string RawRequest(int port, const std::string& request) {
  const int fd = testing::ConnectLoopback(port);
  if (fd < 0) return "";
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  (void)!write(fd, request.data(), request.size());
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) {
    out.append(buf, static_cast<size_t>(n));
    if (out.find("Reloaded\n") != std::string::npos) break;
  }
  close(fd);
  return out;
}

TEST_F(RoutesTest, BodylessPostWithoutContentLengthIsAnsweredAtOnce) {
  Start();
  // What `curl -X POST http://host/-/reload` sends: no Content-Length, no body.
  const auto t0 = std::chrono::steady_clock::now();
  const std::string res =
      RawRequest(server_->port(), "POST /-/reload HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_EQ(res.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << res;
  EXPECT_NE(res.find("Reloaded\n"), std::string::npos) << res;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

TEST_F(RoutesTest, PostWithBodyIsDrained) {
  Start();
  httplib::Client cli = Client();
  cli.set_keep_alive(true);
  auto res = cli.Post("/-/reload", "some body", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  auto next = cli.Get("/-/healthy");  // same connection: the body did not leak into it
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200);
}

TEST_F(RoutesTest, TooManyConcurrentScrapesGet503) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<int> entered{0};
  ep_->max_requests = 1;
  ep_->metrics = [&] {
    ++entered;
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return release; });
    return std::string("m 1\n");
  };
  Start();
  std::thread first([&] { EXPECT_EQ(Client().Get("/metrics")->status, 200); });
  while (entered.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  auto second = Client().Get("/metrics");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 503);
  EXPECT_EQ(Client().Get("/-/healthy")->status, 200) << "other endpoints stay available";
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  first.join();
  EXPECT_EQ(Client().Get("/metrics")->status, 200);
}

TEST_F(RoutesTest, TelemetryPathIsNotARegex) {
  ep_->telemetry_path = "/a.b";
  Start();
  EXPECT_EQ(Client().Get("/a.b")->status, 200);
  EXPECT_EQ(Client().Get("/axb")->status, 404);
}

TEST_F(RoutesTest, TelemetryAtRootHasNoLandingPage) {
  ep_->telemetry_path = "/";
  Start();
  auto res = Client().Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->body, "m 1\n");
}

// Issue 17 item 6: the admin endpoints count against --web.max-requests.
TEST_F(RoutesTest, AdminEndpointsShareTheRequestLimit) {
  ep_->max_requests = 1;
  ep_->in_flight->store(1);  // one scrape is running
  Start();
  EXPECT_EQ(Client().Get("/debug/probes")->status, 503);
  EXPECT_EQ(Client().Post("/-/reload")->status, 503);
  EXPECT_EQ(Client().Get("/-/healthy")->status, 200);
  ep_->in_flight->store(0);
  EXPECT_EQ(Client().Get("/debug/probes")->status, 200);
  EXPECT_EQ(Client().Post("/-/reload")->status, 200);
}

TEST_F(RoutesTest, ReloadAlreadyRunningIs503) {
  ep_->reload = [] { return Status(Error::Make(ErrorCode::kUnavailable, "a reload is already running")); };
  Start();
  auto res = Client().Post("/-/reload");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
}

/// Basic auth with one user "u" whose password is "p".
void WithUser(Endpoints& ep) {
  ep.auth_enabled = [] { return true; };
  ep.check_credentials = [](const std::string& header) { return header == "Basic dTpw"; };
}

TEST_F(RoutesTest, AdminAuthRequiredWithoutUsersIsForbidden) {
  ep_->admin_auth = AdminAuth::kRequired;
  Start();
  for (const char* path : {"/debug/probes", "/debug/ud_mesh", "/-/reload"}) {
    auto res = std::string(path) == "/-/reload" ? Client().Post(path) : Client().Get(path);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 403) << path;
    EXPECT_NE(res->body.find("--web.admin-auth=false"), std::string::npos) << res->body;
  }
  EXPECT_EQ(Client().Get("/metrics")->status, 200) << "only the admin endpoints are refused";
}

TEST_F(RoutesTest, AdminAuthAutoFollowsBasicAuth) {
  WithUser(*ep_);
  Start();
  EXPECT_EQ(Client().Get("/debug/probes")->status, 401);
  EXPECT_EQ(Client().Post("/-/reload")->status, 401);
  auto c = Client();
  c.set_basic_auth("u", "p");
  EXPECT_EQ(c.Get("/debug/probes")->status, 200);
  EXPECT_EQ(c.Post("/-/reload")->status, 200);
}

TEST_F(RoutesTest, AdminAuthFalseOpensOnlyTheAdminEndpoints) {
  WithUser(*ep_);
  ep_->admin_auth = AdminAuth::kOpen;
  Start();
  EXPECT_EQ(Client().Get("/debug/probes")->status, 200);
  EXPECT_EQ(Client().Get("/metrics")->status, 401);
}

}  // namespace
}  // namespace rxe::exporter
