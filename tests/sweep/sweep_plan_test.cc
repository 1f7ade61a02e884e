#include "sweep/sweep_plan.h"

#include <gtest/gtest.h>

#include "sweep/sweep_values.h"

namespace rxe::sweep {
namespace {

Base DefaultBase() {
  Base b;
  b.params = ArticleDefaults();
  return b;
}

std::vector<std::string> Labels(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& pt : p.points) out.push_back(pt.label);
  return out;
}

TEST(SweepPlan, SizeListWithSuffixes) {
  auto plan = ExpandVary("size=64,512,4KiB,64KiB,1MiB", DefaultBase());
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(Labels(*plan), (std::vector<std::string>{"64B", "512B", "4KiB", "64KiB", "1MiB"}));
  EXPECT_EQ(plan->points[2].params.size, 4096u);
  EXPECT_EQ(plan->points[4].params.size, 1048576u);
  EXPECT_EQ(plan->baseline, 3u);  // the article's 64 KiB
  EXPECT_EQ(plan->param, Param::kSize);
  EXPECT_EQ(plan->metric, Metric::kBandwidth);
  for (const auto& pt : plan->points) {  // the others are held
    EXPECT_EQ(pt.params.mtu, 4096u);
    EXPECT_EQ(pt.params.qps, 1u);
  }
}

TEST(SweepPlan, ShorthandSizesAreBinary) {
  auto plan = ExpandVary("size=64K,1M,2KB", DefaultBase());
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->points[0].params.size, 65536u);
  EXPECT_EQ(plan->points[1].params.size, 1048576u);
  EXPECT_EQ(plan->points[2].params.size, 2048u);
}

TEST(SweepPlan, RangesAndSteps) {
  auto qps = ExpandVary("qps=1..8", DefaultBase());
  ASSERT_TRUE(qps.ok());
  EXPECT_EQ(Labels(*qps), (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8"}));
  auto doubling = ExpandVary("qps=1..8:x2", DefaultBase());
  ASSERT_TRUE(doubling.ok());
  EXPECT_EQ(Labels(*doubling), (std::vector<std::string>{"1", "2", "4", "8"}));
  auto plus = ExpandVary("tx_depth=32..128:+32", DefaultBase());
  ASSERT_TRUE(plus.ok());
  EXPECT_EQ(Labels(*plus), (std::vector<std::string>{"32", "64", "96", "128"}));
  auto sizes = ExpandVary("size=64..1KiB", DefaultBase());  // sizes double by default
  ASSERT_TRUE(sizes.ok());
  EXPECT_EQ(Labels(*sizes), (std::vector<std::string>{"64B", "128B", "256B", "512B", "1KiB"}));
  auto mtu = ExpandVary("mtu=512..4096", DefaultBase());
  ASSERT_TRUE(mtu.ok());
  EXPECT_EQ(Labels(*mtu), (std::vector<std::string>{"512", "1024", "2048", "4096"}));
  EXPECT_EQ(mtu->baseline, 1u);  // the article's MTU table compares with 1024
}

TEST(SweepPlan, PostListSetsCqModerationLikePerftest) {
  auto plan = ExpandVary("post_list=1,4,32", DefaultBase());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->points[1].params.post_list, 4u);
  EXPECT_EQ(plan->points[1].params.cq_moderation, 4u);
  EXPECT_TRUE(ValidatePlan(*plan, 4u << 20).ok());
}

TEST(SweepPlan, CpuPoints) {
  auto plan = ExpandVary("cpu=none,0,2-3,0+2", DefaultBase());
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(Labels(*plan), (std::vector<std::string>{"none", "0", "2-3", "0,2"}));
  EXPECT_TRUE(plan->points[0].pin.none());
  EXPECT_EQ(plan->points[2].pin.cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(plan->baseline, 0u);
  EXPECT_EQ(plan->points[3].x, 3.0);  // categorical position
}

TEST(SweepPlan, TypesMustNotMixBandwidthAndLatency) {
  auto ok = ExpandVary("type=write_bw,ib_send_bw", DefaultBase());
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->points[1].params.type, config::ProbeType::kSendBw);
  auto mixed = ExpandVary("type=write_bw,send_lat", DefaultBase());
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.error().message.find("mix of bandwidth and latency"), std::string::npos);
  Base lat = DefaultBase();
  lat.params.type = config::ProbeType::kSendLat;
  auto lat_plan = ExpandVary("type=send_lat,write_lat", lat);
  ASSERT_TRUE(lat_plan.ok());
  EXPECT_EQ(lat_plan->metric, Metric::kLatency);
  EXPECT_EQ(lat_plan->points[1].params.tx_depth, 1u);
}

TEST(SweepPlan, ExplicitBaselineByLabelOrValue) {
  Base b = DefaultBase();
  b.baseline = "4096";
  auto plan = ExpandVary("size=64,4KiB,64KiB", b);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->baseline, 1u);
  b.baseline = "4kib";
  EXPECT_EQ(ExpandVary("size=64,4KiB,64KiB", b)->baseline, 1u);
  b.baseline = "8KiB";
  auto bad = ExpandVary("size=64,4KiB,64KiB", b);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not one of the size points (64B, 4KiB, 64KiB)"),
            std::string::npos);
}

TEST(SweepPlan, FirstPointWhenTheArticleHasNoBaseline) {
  auto plan = ExpandVary("tx_depth=64,128", DefaultBase());
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->baseline, 0u);
  auto sizes = ExpandVary("size=64,128", DefaultBase());  // 64 KiB not in the list
  EXPECT_EQ(sizes->baseline, 0u);
}

TEST(SweepPlan, Errors) {
  struct Case {
    const char* spec;
    const char* message;
  } cases[] = {
      {"size", "wants NAME=VALUES"},
      {"bogus=1", "unknown parameter \"bogus\""},
      {"mtu=1000", "not a RoCE MTU"},
      {"mtu=512..4096:+1", "not a RoCE MTU"},
      {"qps=0", "out of range 1..64"},
      {"qps=8..1", "start > end"},
      {"qps=1..8:y2", "bad step"},
      {"inline=0..512:x2", "factor step needs a start > 0"},
      {"inline=1KiB", "out of range 0..512"},
      {"size=64,,128", "empty value"},
      {"size=64,64", "duplicate value 64B"},
      {"cpu=a", "bad CPU list"},
      {"type=rdma", "unknown probe type"},
      {"size=1..16MiB:+1", "more than 256 points"},
  };
  for (const auto& c : cases) {
    auto plan = ExpandVary(c.spec, DefaultBase());
    ASSERT_FALSE(plan.ok()) << c.spec;
    EXPECT_NE(plan.error().message.find(c.message), std::string::npos)
        << c.spec << ": " << plan.error().message;
  }
}

TEST(SweepPlan, ValidateNamesTheBadPoint) {
  auto plan = ExpandVary("cq_mod=1,256", DefaultBase());
  ASSERT_TRUE(plan.ok());
  auto st = ValidatePlan(*plan, 4u << 20);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("point 256"), std::string::npos) << st.error().message;
}

TEST(SweepPreset, ArticleExperiments) {
  auto plans = ArticlePreset(3, 1);
  ASSERT_EQ(plans.size(), 6u);
  const char* names[] = {"01-size", "02-mtu", "03-qps", "04-post_list", "05-cq_mod", "06-cpu"};
  const char* baselines[] = {"64KiB", "1024", "1", "1", "1", "none"};
  const size_t counts[] = {7, 4, 4, 5, 5, 2};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(plans[i].name, names[i]);
    EXPECT_EQ(plans[i].points.size(), counts[i]) << names[i];
    EXPECT_EQ(plans[i].points[plans[i].baseline].label, baselines[i]) << names[i];
    EXPECT_EQ(plans[i].repeat, 3);
    EXPECT_TRUE(ValidatePlan(plans[i], 4u << 20).ok()) << names[i];
    for (const auto& pt : plans[i].points) {
      EXPECT_EQ(pt.params.type, config::ProbeType::kWriteBw);
      if (plans[i].param != Param::kMtu) {
        EXPECT_EQ(pt.params.mtu, 4096u);
      }
      if (plans[i].param != Param::kSize) {
        EXPECT_EQ(pt.params.size, 65536u);
      }
    }
  }
  EXPECT_EQ(Labels(plans[0]),
            (std::vector<std::string>{"64B", "512B", "4KiB", "16KiB", "64KiB", "256KiB", "1MiB"}));
  EXPECT_EQ(plans[4].points[0].params.qps, 2u);  // the article's CQ moderation runs used -q 2
  EXPECT_EQ(plans[5].points[1].pin.cpus, std::vector<int>{1});
  EXPECT_EQ(plans[5].points[1].params.qps, 2u);
}

TEST(SweepPlan, HeldSummaryOmitsTheVariedParameter) {
  auto plan = ExpandVary("qps=1,2", DefaultBase());
  EXPECT_EQ(HeldSummary(*plan),
            "type=write_bw size=64KiB mtu=4096 post_list=1 cq_mod=1 tx_depth=128 inline=0 cpu=none "
            "duration=1s");
}

TEST(SweepPlan, ParamNamesAndAliases) {
  EXPECT_EQ(ParseParamName("post-list"), Param::kPostList);
  EXPECT_EQ(ParseParamName("cq_moderation"), Param::kCqMod);
  EXPECT_EQ(ParseParamName("Q"), Param::kQps);
  EXPECT_FALSE(ParseParamName("qpz"));
  EXPECT_EQ(SizeLabel(1000), "1000B");
  EXPECT_EQ(SizeLabel(1536), "1536B");
}

}  // namespace
}  // namespace rxe::sweep
