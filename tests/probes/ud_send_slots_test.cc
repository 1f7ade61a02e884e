// ud_ping's send slots: unsignaled sends are reclaimed in post order by the next signaled
// (or failed) send's completion; the send taking the last free slot is always signaled.
#include "probes/ud_send_slots.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

namespace rxe::probes::ud {
namespace {

Gid GidOf(uint8_t b) {
  Gid g{};
  g[15] = b;
  return g;
}

// Posts one send on a free slot as the endpoint does; returns (slot, signaled).
std::pair<uint32_t, bool> Post(SendSlots& s, uint64_t tag, uint8_t to = 1) {
  const auto slot = s.Acquire();
  EXPECT_TRUE(slot.has_value());
  const bool sig = s.ShouldSignal();
  s.Posted(*slot, tag, GidOf(to), sig);
  return {*slot, sig};
}

std::vector<uint32_t> Complete(SendSlots& s, uint32_t slot, std::vector<Gid>* gids = nullptr) {
  std::vector<uint32_t> freed;
  s.Complete(slot, [&](uint32_t f, const Gid& g) {
    freed.push_back(f);
    if (gids) gids->push_back(g);
  });
  return freed;
}

TEST(UdSendSlots, SignalsEveryNthSend) {
  SendSlots s(64, 4);
  std::vector<bool> signaled;
  for (uint64_t t = 1; t <= 12; ++t) signaled.push_back(Post(s, t).second);
  EXPECT_EQ(signaled, (std::vector<bool>{false, false, false, true, false, false, false, true,
                                         false, false, false, true}));
  EXPECT_EQ(s.posted_count(), 12u);
  EXPECT_EQ(s.free_count(), 52u);
}

TEST(UdSendSlots, SignaledCompletionFreesEarlierSendsInPostOrder) {
  SendSlots s(16, 4);
  std::vector<uint32_t> slots;
  for (uint8_t i = 0; i < 4; ++i) slots.push_back(Post(s, 100 + i, i).first);
  std::vector<Gid> gids;
  const auto freed = Complete(s, slots[3], &gids);
  EXPECT_EQ(freed, slots) << "oldest first, up to and including the completed slot";
  EXPECT_EQ(gids, (std::vector<Gid>{GidOf(0), GidOf(1), GidOf(2), GidOf(3)}));
  EXPECT_EQ(s.posted_count(), 0u);
  EXPECT_EQ(s.free_count(), 16u);
}

TEST(UdSendSlots, FailedUnsignaledSendFreesOnlyUpToItself) {
  // A failed send completes even unsignaled: it and the sends before it are done, the ones
  // after it are still posted (their completion, or flush error, comes later).
  SendSlots s(16, 8);
  std::vector<uint32_t> slots;
  for (uint64_t t = 1; t <= 5; ++t) slots.push_back(Post(s, t).first);
  EXPECT_EQ(s.tag(slots[1]), 2u);
  EXPECT_EQ(Complete(s, slots[1]), (std::vector<uint32_t>{slots[0], slots[1]}));
  EXPECT_EQ(s.posted_count(), 3u);
  // The flush errors of the rest, one by one.
  EXPECT_EQ(Complete(s, slots[2]), std::vector<uint32_t>{slots[2]});
  EXPECT_EQ(Complete(s, slots[4]), (std::vector<uint32_t>{slots[3], slots[4]}));
  EXPECT_EQ(s.posted_count(), 0u);
  EXPECT_EQ(s.free_count(), 16u);
}

TEST(UdSendSlots, UnknownOrRepeatedCompletionFreesNothing) {
  SendSlots s(8, 2);
  const auto [a, sig] = Post(s, 1);
  EXPECT_EQ(Complete(s, a), std::vector<uint32_t>{a});
  EXPECT_TRUE(Complete(s, a).empty()) << "already freed";
  EXPECT_TRUE(Complete(s, 7).empty()) << "never posted";
  EXPECT_TRUE(Complete(s, 99).empty()) << "out of range";
  EXPECT_EQ(s.tag(99), 0u) << "a bogus completion's slot reads no tag";
  EXPECT_EQ(s.free_count(), 8u);
}

TEST(UdSendSlots, LastFreeSlotIsSignaledSoNothingIsStranded) {
  // signal_every larger than the slots: only the last-slot rule signals. Fill every slot,
  // complete the last (signaled) one: all are free again, none stranded.
  SendSlots s(5, 100);
  std::vector<bool> signaled;
  uint32_t last = 0;
  for (uint64_t t = 1; t <= 5; ++t) {
    const auto [slot, sig] = Post(s, t);
    signaled.push_back(sig);
    last = slot;
  }
  EXPECT_EQ(signaled, (std::vector<bool>{false, false, false, false, true}));
  EXPECT_FALSE(s.Acquire().has_value());
  EXPECT_EQ(Complete(s, last).size(), 5u);
  EXPECT_EQ(s.free_count(), 5u);
}

TEST(UdSendSlots, ReleasedSlotIsReusableAndNotPosted) {
  SendSlots s(2, 1);
  const auto a = s.Acquire();
  ASSERT_TRUE(a);
  s.Release(*a);  // the post failed
  EXPECT_EQ(s.free_count(), 2u);
  EXPECT_EQ(s.posted_count(), 0u);
  EXPECT_TRUE(Complete(s, *a).empty());
  EXPECT_EQ(s.Acquire(), a) << "most recently freed slot first";
}

TEST(UdSendSlots, SteadyStateNeverRunsOutAndEverySlotIsUsedOnce) {
  // A long run where completions arrive only for signaled sends (as on the QP): the pool
  // never runs dry and posted + free always adds up to the slot count.
  SendSlots s(16, 4);
  std::set<uint32_t> in_flight;
  std::vector<uint32_t> signaled_slots;
  for (uint64_t t = 1; t <= 1000; ++t) {
    const auto [slot, sig] = Post(s, t);
    EXPECT_TRUE(in_flight.insert(slot).second) << "slot " << slot << " posted twice";
    if (sig) signaled_slots.push_back(slot);
    if (signaled_slots.size() == 2) {  // completions lag behind by one signaled send
      for (uint32_t f : Complete(s, signaled_slots.front())) in_flight.erase(f);
      signaled_slots.erase(signaled_slots.begin());
    }
    ASSERT_EQ(s.free_count() + s.posted_count(), 16u);
    ASSERT_GE(s.free_count(), 16u - 8u);
  }
}

}  // namespace
}  // namespace rxe::probes::ud
