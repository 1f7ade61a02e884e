#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include "doctor/doctor_collector.h"

namespace rxe::doctor {
namespace {

using collectors::Collector;
using collectors::DeviceMatcher;
using collectors::ScrapeContext;

std::string Render(Collector& c, ScrapeContext& ctx) {
  std::vector<prometheus::MetricFamily> out;
  EXPECT_TRUE(c.Collect(ctx, out).ok());
  return prometheus::TextSerializer().Serialize(out);
}

DoctorCollectorOptions FixtureOptions() {
  DoctorCollectorOptions o;
  o.sysfs_root = std::string(RXE_FIXTURES_DIR) + "/sys";
  return o;
}

TEST(DoctorCollectorTest, ReportsPerDeviceChecksForEveryDevice) {
  auto c = NewDoctorCollector(FixtureOptions());
  ScrapeContext ctx;
  const std::string text = Render(*c, ctx);
  EXPECT_NE(text.find("# TYPE rxe_doctor_check_status gauge"), std::string::npos) << text;
  EXPECT_NE(text.find("device=\"rxe0\""), std::string::npos) << text;
  EXPECT_NE(text.find("device=\"mlx5_0\""), std::string::npos) << text;
}

TEST(DoctorCollectorTest, HonoursTheDeviceFilter) {
  auto c = NewDoctorCollector(FixtureOptions());
  ScrapeContext ctx;
  ctx.devices = DeviceMatcher("rxe.*", "");
  const std::string text = Render(*c, ctx);
  EXPECT_NE(text.find("device=\"rxe0\""), std::string::npos) << text;
  EXPECT_EQ(text.find("device=\"mlx5_0\""), std::string::npos) << text;
}

}  // namespace
}  // namespace rxe::doctor
