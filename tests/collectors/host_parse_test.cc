#include "collectors/host_parse.h"

#include <gtest/gtest.h>

namespace rxe::collectors {
namespace {

constexpr char kStat[] =
    "cpu  100 0 50 1000 5 0 30 0 0 0\n"
    "cpu0 60 0 30 400 5 0 25 0 0 0\n"
    "cpu1 40 0 20 600 0 0 5 0 0 0\n"
    "intr 12345 0 0\n";

TEST(HostParseTest, ProcStatPerCpu) {
  auto cpus = ParseProcStat(kStat);
  ASSERT_TRUE(cpus.has_value());
  ASSERT_EQ(cpus->size(), 2u);
  EXPECT_EQ((*cpus)[0].cpu, 0);
  EXPECT_EQ((*cpus)[0].softirq_ticks, 25u);
  EXPECT_EQ((*cpus)[0].total_ticks, 60u + 30 + 400 + 5 + 25);
  EXPECT_EQ((*cpus)[1].softirq_ticks, 5u);
}

TEST(HostParseTest, ProcStatRejectsGarbage) {
  EXPECT_FALSE(ParseProcStat("cpu0 1 2 x 4 5 6 7 8\n").has_value());
  EXPECT_FALSE(ParseProcStat("cpu0 1 2\n").has_value());
  EXPECT_FALSE(ParseProcStat("intr 1\n").has_value());
}

TEST(HostParseTest, Softirqs) {
  auto t = ParseSoftirqs(
      "                    CPU0       CPU1\n"
      "          HI:          1          0\n"
      "      NET_TX:         10         20\n"
      "      NET_RX:       3000        400\n");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->at("NET_RX"), (std::vector<uint64_t>{3000, 400}));
  EXPECT_EQ(t->at("NET_TX"), (std::vector<uint64_t>{10, 20}));
  EXPECT_FALSE(ParseSoftirqs("CPU0\nNET_RX 1\n").has_value());
}

TEST(HostParseTest, BusiestCpuShare) {
  std::vector<CpuTimes> before{{0, 1000, 100}, {1, 1000, 10}};
  std::vector<CpuTimes> after{{0, 1100, 190}, {1, 1100, 20}};
  auto b = BusiestSoftirqCpu(before, after);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->cpu, 0);
  EXPECT_DOUBLE_EQ(b->ratio, 0.9);
  EXPECT_FALSE(BusiestSoftirqCpu({}, after).has_value());
  EXPECT_FALSE(BusiestSoftirqCpu(after, after).has_value());
}

}  // namespace
}  // namespace rxe::collectors
