// Issue 17 item 6: a reload resolves peer names (getaddrinfo) before it takes
// the lock that Collect() needs, so a slow resolver cannot stall scrapes.
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "probes/probe_service.h"
#include "tests/probes/prober_test_fakes.h"

namespace rxe::probes {
namespace {

using namespace std::chrono_literals;

TEST(ProbeServiceReloadTest, SlowResolverDoesNotBlockCollect) {
  std::mutex mu;
  std::condition_variable cv;
  bool block = false, resolving = false, release = false;

  StartOptions o;
  o.session_factory = testing::FakeFactory(std::make_shared<testing::FakeBehavior>());
  o.responder_settings = [&](const config::Config& cfg, Clock::duration io_timeout) {
    std::unique_lock<std::mutex> lock(mu);
    if (block) {  // a resolver that hangs until released
      resolving = true;
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
    }
    return ResponderSettingsFrom(cfg, io_timeout);
  };
  config::Config cfg;
  cfg.responder.listen_addresses = {"127.0.0.1:0"};
  cfg.peers = {config::Peer{"p", "127.0.0.1", 19792, {}}};

  ProbeService svc;
  ASSERT_TRUE(svc.Start(cfg, o).ok());
  {
    std::lock_guard<std::mutex> lock(mu);
    block = true;
  }
  Status reloaded;
  std::thread reload([&] { reloaded = svc.ApplyConfig(cfg); });
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, 10s, [&] { return resolving; }));
  }
  auto scrape = std::async(std::launch::async, [&] { return svc.Collect().size(); });
  EXPECT_EQ(scrape.wait_for(5s), std::future_status::ready)
      << "Collect() waited for the reload's name resolution";
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  reload.join();
  EXPECT_TRUE(reloaded.ok());
  EXPECT_GT(scrape.get(), 0u);
}

}  // namespace
}  // namespace rxe::probes
