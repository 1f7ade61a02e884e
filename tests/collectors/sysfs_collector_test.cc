// The sysfs collector end to end: fixture tree -> TextSerializer -> golden file.
// RXE_UPDATE_GOLDEN=1 rewrites tests/fixtures/golden/sysfs.prom instead of comparing.
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "collectors/factory.h"

namespace rxe::collectors {
namespace {

namespace fs = std::filesystem;

const std::string kFixture = std::string(RXE_FIXTURES_DIR) + "/sys";
const std::string kGolden = std::string(RXE_FIXTURES_DIR) + "/golden/sysfs.prom";

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

struct Scrape {
  Status status;
  std::string text;
  ScrapeContext ctx;
};

Scrape Scan(const std::string& root, ScrapeContext ctx = {}, config::CollectorsConfig cfg = {}) {
  auto collector = NewSysfsCollector(cfg, root);
  std::vector<prometheus::MetricFamily> families;
  Scrape s;
  s.status = collector->Collect(ctx, families);
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  s.text = out.str();
  s.ctx = std::move(ctx);
  return s;
}

bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(SysfsCollectorTest, NameIsSysfs) {
  EXPECT_EQ(NewSysfsCollector({}, kFixture)->Name(), "sysfs");
}

TEST(SysfsCollectorTest, GoldenExposition) {
  const Scrape s = Scan(kFixture);
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  if (const char* u = std::getenv("RXE_UPDATE_GOLDEN"); u != nullptr && std::string(u) == "1") {
    fs::create_directories(fs::path(kGolden).parent_path());
    std::ofstream(kGolden, std::ios::binary) << s.text;
    std::cout << "RXE_UPDATE_GOLDEN=1: rewrote " << kGolden << " (" << s.text.size()
              << " bytes); review the diff before committing\n";
    return;
  }
  std::ifstream in(kGolden, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing " << kGolden << "; run with RXE_UPDATE_GOLDEN=1 to create it";
  const std::string golden((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(s.text, golden) << "output differs from " << kGolden
                            << "; if the change is intended, rerun with RXE_UPDATE_GOLDEN=1";
}

TEST(SysfsCollectorTest, OutputIsDeterministic) {
  EXPECT_EQ(Scan(kFixture).text, Scan(kFixture).text);
}

TEST(SysfsCollectorTest, GoldenPassesPromtool) {
  ASSERT_EQ(std::system("command -v promtool >/dev/null 2>&1"), 0)
      << "promtool not found: install it (Debian package 'prometheus': apt-get install "
         "prometheus); CI installs it";
  const std::string cmd = "promtool check metrics < '" + kGolden + "' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string output;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof(buf), p)) output.append(buf, n);
  const int rc = ::pclose(p);
  EXPECT_EQ(rc, 0) << "promtool check metrics " << kGolden << ":\n" << output;
}

TEST(SysfsCollectorTest, EmptyRootIsNoData) {
  TempTree t;
  Scrape s = Scan(t.root());
  ASSERT_FALSE(s.status.ok());
  EXPECT_EQ(s.status.error().code, ErrorCode::kNoData);
  EXPECT_EQ(s.text, "");
  // An existing but empty class directory (ib_core loaded, no device) too.
  fs::create_directories(t.root() + "/class/infiniband");
  s = Scan(t.root());
  ASSERT_FALSE(s.status.ok());
  EXPECT_EQ(s.status.error().code, ErrorCode::kNoData);
}

TEST(SysfsCollectorTest, ExcludeRegexRemovesDevice) {
  ScrapeContext ctx;
  ctx.devices = DeviceMatcher(".*", "mlx5_.*");
  const Scrape s = Scan(kFixture, std::move(ctx));
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  EXPECT_FALSE(Contains(s.text, "mlx5_0"));
  EXPECT_TRUE(Contains(s.text, "rxe_device_info{device=\"rxe0\""));
  ASSERT_EQ(s.ctx.port_netdevs.size(), 1u);
  EXPECT_EQ(s.ctx.port_netdevs[0].first, std::make_pair(std::string("rxe0"), 1));
}

TEST(SysfsCollectorTest, FillsPortNetdevsFromParentOrGids) {
  const Scrape s = Scan(kFixture);
  ASSERT_EQ(s.ctx.port_netdevs.size(), 2u);
  EXPECT_EQ(s.ctx.port_netdevs[0].first, std::make_pair(std::string("mlx5_0"), 1));
  EXPECT_EQ(s.ctx.port_netdevs[0].second, "ens1f0np0");  // gid_attrs/ndevs
  EXPECT_EQ(s.ctx.port_netdevs[1].first, std::make_pair(std::string("rxe0"), 1));
  EXPECT_FALSE(s.ctx.port_netdevs[1].second.empty());    // parent
}

TEST(SysfsCollectorTest, HwCounterFallbackSkipsPortsExportedByNetlink) {
  ScrapeContext ctx;
  ctx.hw_counters_exported.insert({"rxe0", 1});
  const Scrape s = Scan(kFixture, std::move(ctx));
  ASSERT_TRUE(s.status.ok());
  EXPECT_FALSE(Contains(s.text, "rxe_port_sent_packets_total"));
  EXPECT_FALSE(Contains(s.text, "rxe_port_hw_stat_total{counter=\"rdma_sends\""));
  // mlx5_0 was not exported by netlink: its hw counters still come from sysfs.
  EXPECT_TRUE(Contains(s.text, "rxe_port_hw_stat_total{counter=\"out_of_buffer\","
                               "device=\"mlx5_0\",port=\"1\"} 12"));
  // Everything else about rxe0 is still there.
  EXPECT_TRUE(Contains(s.text, "rxe_port_state{device=\"rxe0\",port=\"1\"} 4"));
  // Without the mark, sysfs exports rxe0's hw counters.
  EXPECT_TRUE(Contains(Scan(kFixture).text, "rxe_port_sent_packets_total{device=\"rxe0\""));
}

TEST(SysfsCollectorTest, NetlinkOnlySourceDisablesHwCounterFallback) {
  config::CollectorsConfig cfg;
  cfg.hw_counter_source = config::HwCounterSource::kNetlink;
  const Scrape s = Scan(kFixture, {}, cfg);
  ASSERT_TRUE(s.status.ok());
  EXPECT_FALSE(Contains(s.text, "rxe_port_sent_packets_total"));
  EXPECT_FALSE(Contains(s.text, "rxe_port_hw_stat_total"));
  EXPECT_TRUE(Contains(s.text, "rxe_port_data_transmitted_bytes_total"));
}

TEST(SysfsCollectorTest, UnknownHwCountersExportedGenerically) {
  TempTree t;
  const std::string port = "class/infiniband/rxe7/ports/1/";
  t.Write("class/infiniband/rxe7/parent", "eth7\n");
  t.Write(port + "state", "1: DOWN\n");
  t.Write(port + "hw_counters/sent_pkts", "5\n");
  t.Write(port + "hw_counters/brand_new_counter", "42\n");
  t.Write(port + "hw_counters/lifespan", "10\n");
  const Scrape s = Scan(t.root());
  ASSERT_TRUE(s.status.ok()) << s.status.error().message;
  EXPECT_TRUE(Contains(s.text, "rxe_port_hw_stat_total{counter=\"brand_new_counter\","
                               "device=\"rxe7\",port=\"1\"} 42\n"));
  EXPECT_TRUE(Contains(s.text, "rxe_port_sent_packets_total{device=\"rxe7\",port=\"1\"} 5\n"));
  EXPECT_FALSE(Contains(s.text, "lifespan"));
  EXPECT_TRUE(Contains(s.text, "rxe_port_active{device=\"rxe7\",port=\"1\"} 0\n"));
}

TEST(SysfsCollectorTest, PmaDataCountersAreWordsTimesFour) {
  const std::string text = Scan(kFixture).text;
  // counters/port_xmit_data = 2500000000 words, port_rcv_data = 1250000000 words.
  EXPECT_TRUE(Contains(text, "rxe_port_data_transmitted_bytes_total{device=\"mlx5_0\",port=\"1\"} "
                             "10000000000\n"));
  EXPECT_TRUE(Contains(text, "rxe_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"} "
                             "5000000000\n"));
  EXPECT_TRUE(Contains(text, "rxe_port_pma_stat_total{counter=\"symbol_error\",device=\"mlx5_0\""));
  EXPECT_FALSE(Contains(text, "VL15_dropped"));  // "N/A (no PMA)"
}

TEST(SysfsCollectorTest, BrokenAttributeFailsCollectorButKeepsTheRest) {
  TempTree t;
  t.Write("class/infiniband/rxe5/parent", "eth5\n");
  t.Write("class/infiniband/rxe5/ports/1/state", "4: ACTIVE\n");
  t.Write("class/infiniband/rxe5/ports/1/rate", "lots\n");
  const Scrape s = Scan(t.root());
  ASSERT_FALSE(s.status.ok());
  EXPECT_EQ(s.status.error().code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s.status.error().message, "rate"));
  EXPECT_TRUE(Contains(s.text, "rxe_port_state{device=\"rxe5\",port=\"1\"} 4\n"));
}

}  // namespace
}  // namespace rxe::collectors
