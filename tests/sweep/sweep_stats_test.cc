#include <gtest/gtest.h>

#include "sweep/sweep_result.h"

namespace rxe::sweep {
namespace {

TEST(SweepStats, MedianAndQuantiles) {
  EXPECT_DOUBLE_EQ(Median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(Median({7}), 7);
  EXPECT_DOUBLE_EQ(Median({}), 0);
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4, 5}, 0.25), 2);
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4}, 0.25), 1.75);  // R type 7 / numpy default
  EXPECT_DOUBLE_EQ(Quantile({1, 2, 3, 4}, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(Quantile({5, 1}, 0), 1);
  EXPECT_DOUBLE_EQ(Quantile({5, 1}, 1), 5);
}

SweepResult Result(std::vector<std::vector<double>> samples, size_t baseline) {
  Base b;
  b.params = ArticleDefaults();
  SweepResult r;
  r.plan = ExpandVary("cq_mod=1,4,8,16,32", b).value();
  r.plan.baseline = baseline;
  for (size_t i = 0; i < samples.size(); ++i) r.points.push_back({i, samples[i], {}});
  r.complete = samples.size() == r.plan.points.size();
  return r;
}

TEST(SweepStats, ChangeVersusBaselineLikeTheArticle) {
  // The article's CQ moderation table: 5.11, 4.96, 4.71, 1.84, 1.17 Gb/s.
  Summary s = Summarize(Result({{5.11}, {4.96}, {4.71}, {1.84}, {1.17}}, 0));
  ASSERT_EQ(s.points.size(), 5u);
  EXPECT_TRUE(s.points[0].is_baseline);
  EXPECT_DOUBLE_EQ(*s.points[0].change_pct, 0);
  EXPECT_NEAR(*s.points[1].change_pct, -3, 0.5);
  EXPECT_NEAR(*s.points[2].change_pct, -8, 0.5);
  EXPECT_NEAR(*s.points[3].change_pct, -64, 0.5);
  EXPECT_NEAR(*s.points[4].change_pct, -77, 0.5);
  EXPECT_EQ(s.baseline_label, "1");
  EXPECT_TRUE(s.complete);
}

TEST(SweepStats, SpreadAndMissingBaseline) {
  Summary s = Summarize(Result({{}, {1, 3, 2}}, 0));  // baseline failed entirely
  EXPECT_FALSE(s.baseline_measured);
  EXPECT_FALSE(s.points[0].median);
  EXPECT_DOUBLE_EQ(*s.points[1].median, 2);
  EXPECT_DOUBLE_EQ(*s.points[1].min, 1);
  EXPECT_DOUBLE_EQ(*s.points[1].max, 3);
  EXPECT_DOUBLE_EQ(*s.points[1].q1, 1.5);
  EXPECT_DOUBLE_EQ(*s.points[1].q3, 2.5);
  EXPECT_FALSE(s.points[1].change_pct);
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(s.planned_points, 5u);
}

}  // namespace
}  // namespace rxe::sweep
