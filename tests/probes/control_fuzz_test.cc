// Quick deterministic fuzz loops: random bytes and mutated valid frames must
// decode to a message or a WireError, never crash. scripts/sanitize.sh asan runs this under
// ASan+UBSan (scripts/test.sh with RXE_SANITIZERS=1); the coverage-guided harness is
// tests/fuzz/control_frame_fuzz.cc.
#include <gtest/gtest.h>

#include <random>

#include "probes/control_protocol.h"

namespace rxe::probes::control {
namespace {

std::vector<std::vector<uint8_t>> Seeds() {
  Hello h;
  h.params.qps = 2;
  Endpoint e;
  e.info.active_mtu = 1024;
  e.info.qps = {{1, 2}, {3, 4}};
  return {Encode(Message{h}),      Encode(Message{Challenge{}}), Encode(Message{Auth{}}),
          Encode(Message{Accept{}}), Encode(Message{Reject{RejectReason::kBusy, "busy"}}),
          Encode(Message{e}),      Encode(Message{Ready{}}),     Encode(Message{Done{true, 1, 2, "t"}}),
          Encode(Message{Bye{}})};
}

TEST(ControlFuzzTest, RandomBytesNeverCrash) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<size_t> len(0, 300);
  size_t decoded = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> buf(len(rng));
    for (auto& b : buf) b = static_cast<uint8_t>(byte(rng));
    if (buf.size() >= 6 && i % 2 == 0) {  // give half of them a valid prefix
      buf[0] = 'R', buf[1] = 'X', buf[2] = 'E', buf[3] = 'P', buf[4] = kVersion;
      buf[5] = static_cast<uint8_t>(1 + i % 9);
    }
    auto r = DecodeFrame(buf, kDefaultMaxMessageBytes);
    if (std::holds_alternative<Message>(r)) ++decoded;
    for (int t = 1; t <= 9; ++t) (void)DecodeBody(static_cast<MessageType>(t), buf);
  }
  SUCCEED() << decoded << " random frames decoded";
}

TEST(ControlFuzzTest, MutatedValidFramesNeverCrash) {
  std::mt19937 rng(777);
  auto seeds = Seeds();
  for (int i = 0; i < 30000; ++i) {
    auto buf = seeds[static_cast<size_t>(i) % seeds.size()];
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips && !buf.empty(); ++f) {
      switch (rng() % 3) {
        case 0: buf[rng() % buf.size()] = static_cast<uint8_t>(rng()); break;
        case 1: buf.resize(rng() % (buf.size() + 1)); break;
        default: buf.insert(buf.begin() + static_cast<long>(rng() % (buf.size() + 1)),
                            static_cast<uint8_t>(rng()));
      }
    }
    auto r = DecodeFrame(buf, kDefaultMaxMessageBytes);
    if (auto* m = std::get_if<Message>(&r)) {
      // Whatever decodes must re-encode to the same bytes (canonical encoding).
      EXPECT_EQ(Encode(*m), buf);
    }
  }
}

}  // namespace
}  // namespace rxe::probes::control
