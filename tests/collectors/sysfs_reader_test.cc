// SysfsReader over tests/fixtures/sys and small trees made on the fly.
#include "collectors/sysfs_reader.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "collectors/sysfs_file.h"

namespace rxe::collectors {
namespace {

namespace fs = std::filesystem;

const std::string kFixture = std::string(RXE_FIXTURES_DIR) + "/sys";

// A throwaway sysfs root under $TMPDIR, removed at the end of the test.
class TempTree {
 public:
  TempTree() {
    std::string tmpl = (fs::temp_directory_path() / "rxe-sysfs-XXXXXX").string();
    root_ = ::mkdtemp(tmpl.data());
  }
  ~TempTree() { fs::remove_all(root_); }
  void Write(const std::string& rel, const std::string& content) const {
    fs::create_directories((fs::path(root_) / rel).parent_path());
    std::ofstream(fs::path(root_) / rel) << content;
  }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

constexpr char kZeroGid[] = "0000:0000:0000:0000:0000:0000:0000:0000\n";

TEST(SysfsReaderTest, ListsFixtureDevicesSorted) {
  SysfsReader reader(kFixture);
  auto names = reader.ListDevices();
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_EQ(*names, (std::vector<std::string>{"mlx5_0", "rxe0"}));
}

TEST(SysfsReaderTest, MissingClassDirKeepsErrno) {
  TempTree t;
  auto names = SysfsReader(t.root()).ListDevices();
  ASSERT_FALSE(names.ok());
  EXPECT_EQ(names.error().sys_errno, ENOENT);
  EXPECT_EQ(names.error().code, ErrorCode::kNotFound);
}

TEST(SysfsReaderTest, ReadsRxeDevice) {
  auto dev = SysfsReader(kFixture).ReadDevice("rxe0", {});
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  EXPECT_TRUE(dev->errors.empty()) << dev->errors.front().message;
  EXPECT_EQ(dev->driver, "rxe");
  ASSERT_TRUE(dev->parent.has_value());
  ASSERT_TRUE(dev->node_type.has_value());
  EXPECT_EQ(dev->node_type->name, "CA");
  EXPECT_EQ(dev->fw_ver, std::optional<std::string>(""));
  ASSERT_EQ(dev->ports.size(), 1u);
  const PortInfo& p = dev->ports[0];
  EXPECT_EQ(p.port, 1);
  ASSERT_TRUE(p.state.has_value());
  EXPECT_EQ(p.state->number, kPortStateActive);
  EXPECT_EQ(p.link_layer, std::optional<std::string>("Ethernet"));
  EXPECT_TRUE(p.counters.empty());  // rxe has no PMA: no counters/ directory
  EXPECT_TRUE(p.hw_counters_read);
  // Captured table: the default GID (fe80::<EUI-64>) and the IPv4 GID, then zeros.
  ASSERT_EQ(p.gids.size(), 2u);
  EXPECT_EQ(p.gids[0].index, 0);
  EXPECT_EQ(p.gids[0].type, GidType::kRoceV2);
  EXPECT_TRUE(p.gids[0].gid.text.starts_with("fe80::"));
  EXPECT_EQ(p.gids[1].gid.text, "::ffff:10.77.0.10");
  EXPECT_EQ(p.gids[1].netdev, dev->parent);
  EXPECT_EQ(PortNetdev(*dev, p), dev->parent);
  for (const auto& [name, value] : p.hw_counters) EXPECT_NE(name, "lifespan");
  EXPECT_TRUE(std::is_sorted(p.hw_counters.begin(), p.hw_counters.end()));
}

TEST(SysfsReaderTest, ReadsHardwareDevice) {
  auto dev = SysfsReader(kFixture).ReadDevice("mlx5_0", {});
  ASSERT_TRUE(dev.ok()) << dev.error().message;
  EXPECT_TRUE(dev->errors.empty()) << dev->errors.front().message;
  EXPECT_EQ(dev->driver, "mlx5_core");
  EXPECT_FALSE(dev->parent.has_value());
  EXPECT_EQ(dev->fw_ver, std::optional<std::string>("16.35.2000"));
  ASSERT_EQ(dev->ports.size(), 1u);
  const PortInfo& p = dev->ports[0];
  EXPECT_EQ(p.rate_bytes_per_second, std::optional<uint64_t>(12'500'000'000));
  // counters/ values are raw (x4 is the collector's business); "N/A (no PMA)" is absent.
  bool saw_xmit_data = false;
  for (const auto& [name, value] : p.counters) {
    EXPECT_NE(name, "VL15_dropped");
    if (name == "port_xmit_data") {
      saw_xmit_data = true;
      EXPECT_EQ(value, 2'500'000'000u);
    }
  }
  EXPECT_TRUE(saw_xmit_data);
  ASSERT_EQ(p.gids.size(), 4u);
  EXPECT_EQ(p.gids[0].type, GidType::kIbRoceV1);
  EXPECT_EQ(p.gids[1].type, GidType::kRoceV2);
  EXPECT_EQ(p.gids[3].gid.text, "::ffff:10.0.0.5");
  EXPECT_EQ(PortNetdev(*dev, p), std::optional<std::string>("ens1f0np0"));
}

TEST(SysfsReaderTest, MaxGidsBoundsTheScan) {
  SysfsReadOptions opts;
  opts.max_gids = 2;
  auto dev = SysfsReader(kFixture).ReadDevice("mlx5_0", opts);
  ASSERT_TRUE(dev.ok());
  ASSERT_EQ(dev->ports[0].gids.size(), 2u);
  // max_gids 0 on a device without `parent`: one GID is still read for the netdev.
  opts.max_gids = 0;
  dev = SysfsReader(kFixture).ReadDevice("mlx5_0", opts);
  ASSERT_TRUE(dev.ok());
  EXPECT_EQ(dev->ports[0].gids.size(), 1u);
  dev = SysfsReader(kFixture).ReadDevice("rxe0", opts);
  ASSERT_TRUE(dev.ok());
  EXPECT_TRUE(dev->ports[0].gids.empty());
}

TEST(SysfsReaderTest, GidScanSkipsHolesAndStopsAfterLongEmptyRun) {
  TempTree t;
  const std::string port = "class/infiniband/rxe9/ports/1/";
  t.Write("class/infiniband/rxe9/parent", "eth9\n");
  // 0 valid, 1..3 empty (hole), 4 valid, 5 valid but its type read fails
  // (type file missing, like EINVAL for a slot emptied meanwhile), then a run
  // of kMaxEmptyGidRun empty slots, then a valid one that must not be reached.
  const int last = 6 + kMaxEmptyGidRun;
  for (int i = 0; i <= last; ++i) t.Write(port + "gids/" + std::to_string(i), kZeroGid);
  for (int i : {0, 4, 5, last}) {
    t.Write(port + "gids/" + std::to_string(i), "fe80:0000:0000:0000:0000:0000:0000:000" +
                                                    std::to_string(i % 10) + "\n");
  }
  for (int i : {0, 4, last}) t.Write(port + "gid_attrs/types/" + std::to_string(i), "RoCE v2\n");
  auto dev = SysfsReader(t.root()).ReadDevice("rxe9", {});
  ASSERT_TRUE(dev.ok());
  EXPECT_TRUE(dev->errors.empty()) << dev->errors.front().message;
  ASSERT_EQ(dev->ports.size(), 1u);
  const auto& gids = dev->ports[0].gids;
  ASSERT_EQ(gids.size(), 2u);
  EXPECT_EQ(gids[0].index, 0);
  EXPECT_EQ(gids[1].index, 4);
  EXPECT_FALSE(gids[1].netdev.has_value());  // no gid_attrs/ndevs/4
}

TEST(SysfsReaderTest, MalformedValuesAreReportedNotFatal) {
  TempTree t;
  const std::string dev = "class/infiniband/bad0/";
  t.Write(dev + "node_type", "CA\n");
  t.Write(dev + "ports/1/state", "ACTIVE\n");
  t.Write(dev + "ports/1/rate", "fast\n");
  t.Write(dev + "ports/1/phys_state", "5: LinkUp\n");
  t.Write(dev + "ports/1/hw_counters/good", "7\n");
  t.Write(dev + "ports/1/hw_counters/bad", "seven\n");
  t.Write(dev + "ports/notaport/state", "4: ACTIVE\n");
  auto d = SysfsReader(t.root()).ReadDevice("bad0", {});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->errors.size(), 4u);  // node_type, state, rate, hw_counters/bad
  for (const Error& e : d->errors) EXPECT_EQ(e.code, ErrorCode::kInvalidArgument) << e.message;
  EXPECT_EQ(d->driver, "unknown");
  ASSERT_EQ(d->ports.size(), 1u);
  EXPECT_FALSE(d->ports[0].state.has_value());
  ASSERT_TRUE(d->ports[0].phys_state.has_value());
  EXPECT_EQ(d->ports[0].hw_counters, (NamedCounters{{"good", 7}}));
}

TEST(SysfsReaderTest, HwCounterOptions) {
  std::set<std::pair<std::string, int>> exported = {{"rxe0", 1}};
  SysfsReadOptions opts;
  opts.skip_hw_counters = &exported;
  auto dev = SysfsReader(kFixture).ReadDevice("rxe0", opts);
  ASSERT_TRUE(dev.ok());
  EXPECT_FALSE(dev->ports[0].hw_counters_read);
  EXPECT_TRUE(dev->ports[0].hw_counters.empty());
  opts.skip_hw_counters = nullptr;
  opts.hw_counters = false;
  dev = SysfsReader(kFixture).ReadDevice("mlx5_0", opts);
  ASSERT_TRUE(dev.ok());
  EXPECT_FALSE(dev->ports[0].hw_counters_read);
}

TEST(SysfsReaderTest, AbsentErrnos) {
  for (int e : {ENOENT, EINVAL, EACCES, EOPNOTSUPP, ENODATA, ENODEV}) EXPECT_TRUE(IsAbsentErrno(e));
  for (int e : {EIO, ENOMEM, EMFILE, EISDIR}) EXPECT_FALSE(IsAbsentErrno(e));
}

TEST(SysfsReaderTest, ReadIsBoundedAndKeepsErrno) {
  TempTree t;
  t.Write("big", std::string(3 * kMaxAttrBytes, 'x'));
  t.Write("dir/file", "1\n");
  auto dir = SysfsDir::Open(t.root());
  ASSERT_TRUE(dir.ok());
  auto big = dir->Read("big");
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->size(), kMaxAttrBytes);
  auto missing = dir->Read("missing");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().sys_errno, ENOENT);
  auto isdir = dir->Read("dir");
  ASSERT_FALSE(isdir.ok());
  EXPECT_EQ(isdir.error().sys_errno, EISDIR);
  EXPECT_NE(isdir.error().message.find(t.root() + "/dir"), std::string::npos);
  auto opt = dir->ReadOptional("missing");
  ASSERT_TRUE(opt.ok());
  EXPECT_FALSE(opt->has_value());
}

}  // namespace
}  // namespace rxe::collectors
