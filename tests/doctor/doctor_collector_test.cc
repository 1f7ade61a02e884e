#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include <filesystem>
#include <fstream>

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

TEST(DoctorCollectorTest, DeviceChangesAreSeenBeforeTheRefresh) {
  // A copy of the fixture tree that the test changes between scrapes.
  namespace fs = std::filesystem;
  const fs::path root = fs::path(::testing::TempDir()) / "doctor_collector_sys";
  fs::remove_all(root);
  fs::copy(fs::path(RXE_FIXTURES_DIR) / "sys", root,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  DoctorCollectorOptions o;
  o.sysfs_root = root.string();
  o.refresh = std::chrono::hours(1);
  auto c = NewDoctorCollector(o);
  ScrapeContext ctx;
  const std::string port = "check=\"port_state\",device=\"rxe0\",port=\"1\"} ";
  std::string text = Render(*c, ctx);
  ASSERT_NE(text.find(port + "0"), std::string::npos) << text;

  // The port goes down: the next scrape fails the check (not an hour later).
  const fs::path ib = root / "class/infiniband";
  const fs::path state = fs::is_symlink(ib / "rxe0") ? fs::read_symlink(ib / "rxe0") : fs::path();
  const fs::path dev = state.empty() ? ib / "rxe0" : (state.is_absolute() ? state : ib / state);
  std::ofstream(dev / "ports/1/state") << "1: DOWN\n";
  text = Render(*c, ctx);
  EXPECT_EQ(text.find(port + "0"), std::string::npos) << text;
  EXPECT_NE(text.find("device=\"rxe0\""), std::string::npos) << text;

  // The device is deleted: its series go with it.
  fs::remove_all(ib / "rxe0");
  text = Render(*c, ctx);
  EXPECT_EQ(text.find("device=\"rxe0\""), std::string::npos) << text;
  EXPECT_NE(text.find("device=\"mlx5_0\""), std::string::npos) << text;
  fs::remove_all(root);
}

}  // namespace
}  // namespace rxe::doctor
