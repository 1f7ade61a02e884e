// A pinger's report table hands out only the reports written since they were last taken.
#include "probes/ud_report_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rxe::probes::ud {
namespace {

struct R {
  std::string name;
  int count = 0;
  std::vector<int> samples;
};

std::vector<std::string> Names(const std::vector<R>& rs) {
  std::vector<std::string> n;
  for (const auto& r : rs) n.push_back(r.name + "=" + std::to_string(r.count));
  return n;
}

TEST(UdReportTable, TakesOnlyWhatChangedSinceTheLastTake) {
  ReportTable<R> t;
  for (const char* n : {"a", "b", "c"}) t[n].name = n;
  auto clear = [](R& r) { r.samples.clear(); };
  EXPECT_EQ(Names(t.TakeChanged(clear)), (std::vector<std::string>{"a=0", "b=0", "c=0"}));
  EXPECT_TRUE(t.TakeChanged(clear).empty()) << "nothing written since";
  ++t["b"].count;
  t["b"].samples.push_back(7);
  ++t["b"].count;
  const auto got = t.TakeChanged(clear);
  ASSERT_EQ(Names(got), std::vector<std::string>{"b=2"}) << "cumulative, once";
  EXPECT_EQ(got[0].samples, std::vector<int>{7});
  ++t["c"].count;
  const auto again = t.TakeChanged(clear);
  ASSERT_EQ(Names(again), std::vector<std::string>{"c=1"});
  ++t["b"].count;
  const auto b = t.TakeChanged(clear);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].count, 3) << "counters kept across takes";
  EXPECT_TRUE(b[0].samples.empty()) << "samples were dropped after being taken";
}

TEST(UdReportTable, RetainDropsOtherNamesAndKeepsTheRest) {
  ReportTable<R> t;
  t["a"].count = 5;
  t["b"].count = 6;
  (void)t.TakeChanged([](R&) {});
  t.Retain({"b", "z"});
  EXPECT_EQ(t.size(), 1u) << "Retain creates nothing";
  EXPECT_TRUE(t.TakeChanged([](R&) {}).empty()) << "a kept report stays unchanged";
  t["b"].name = "b";
  t["z"].name = "z";
  EXPECT_EQ(Names(t.TakeChanged([](R&) {})), (std::vector<std::string>{"b=6", "z=0"}));
}

}  // namespace
}  // namespace rxe::probes::ud
