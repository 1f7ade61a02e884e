#include "exporter/shared_render.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

namespace rxe::exporter {
namespace {

using namespace std::chrono_literals;

/// Waits (up to 10 s) until `cond` holds.
template <typename F>
bool WaitFor(F cond) {
  const auto end = std::chrono::steady_clock::now() + 10s;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(SharedRender, ConcurrentCallersShareOneRender) {
  constexpr int kCallers = 8;
  std::atomic<int> renders{0};
  SharedRender* self = nullptr;
  SharedRender shared([&] {
    const int n = ++renders;
    // The render ends only once every other caller has joined it (deterministic overlap).
    EXPECT_TRUE(WaitFor([&] { return self->waiting() == kCallers - 1; }));
    return "render " + std::to_string(n);
  });
  self = &shared;
  std::vector<std::string> got(kCallers);
  std::vector<std::thread> threads;
  for (int i = 0; i < kCallers; ++i) {
    threads.emplace_back([&, i] { got[i] = *shared.Get(); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(renders.load(), 1);
  for (const auto& g : got) EXPECT_EQ(g, "render 1");
  EXPECT_EQ(shared.stats().renders, 1u);
  EXPECT_EQ(shared.stats().coalesced, static_cast<uint64_t>(kCallers - 1));
  EXPECT_EQ(shared.waiting(), 0);
}

TEST(SharedRender, NothingIsCachedAfterARenderEnds) {
  int renders = 0;
  SharedRender shared([&] { return "render " + std::to_string(++renders); });
  EXPECT_EQ(*shared.Get(), "render 1");
  EXPECT_EQ(*shared.Get(), "render 2");
  EXPECT_EQ(shared.stats().coalesced, 0u);
}

TEST(SharedRender, AFailedRenderReachesEveryJoinedCallerAndTheNextOneRendersAgain) {
  std::atomic<int> renders{0};
  SharedRender* self = nullptr;
  SharedRender shared([&]() -> std::string {
    if (++renders == 1) {
      EXPECT_TRUE(WaitFor([&] { return self->waiting() == 1; }));
      throw std::runtime_error("collector exploded");
    }
    return "ok";
  });
  self = &shared;
  std::atomic<int> errors{0};
  auto call = [&] {
    try {
      (void)shared.Get();
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "collector exploded");
      ++errors;
    }
  };
  std::thread a(call), b(call);
  a.join();
  b.join();
  EXPECT_EQ(errors.load(), 2);
  EXPECT_EQ(*shared.Get(), "ok");
}

}  // namespace
}  // namespace rxe::exporter
