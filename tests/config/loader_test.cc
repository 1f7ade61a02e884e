#include "config/loader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "tests/config/fixture_util.h"

namespace rxe::config {
namespace {

using testing::ErrorOf;

using std::chrono::milliseconds;
using std::chrono::seconds;

Config MustLoad(const std::string& yaml, const std::string& name = "test.yml") {
  auto cfg = LoadString(yaml, name);
  EXPECT_TRUE(cfg.ok()) << cfg.error().message;
  return cfg.ok() ? *cfg : Config{};
}

TEST(LoaderTest, EmptyDocumentGivesDefaults) {
  for (const char* yaml : {"", "# only a comment\n", "---\n", "{}"}) {
    const Config cfg = MustLoad(yaml, "empty.yml");
    const Config def;
    EXPECT_EQ(cfg.source_file, "empty.yml");
    EXPECT_EQ(cfg.devices.include, def.devices.include);
    EXPECT_EQ(cfg.collectors.max_gids_per_port, def.collectors.max_gids_per_port);
    EXPECT_EQ(cfg.responder.enabled, def.responder.enabled);
    EXPECT_EQ(cfg.responder.listen_addresses, def.responder.listen_addresses);
    EXPECT_EQ(cfg.responder.max_buffer_bytes, def.responder.max_buffer_bytes);
    EXPECT_EQ(cfg.prober.max_concurrent, def.prober.max_concurrent);
    EXPECT_TRUE(cfg.peers.empty());
    EXPECT_TRUE(cfg.file_peers.empty());
    EXPECT_TRUE(cfg.modules.empty());
  }
}

TEST(LoaderTest, NullSectionsAndValuesKeepDefaults) {
  const Config cfg = MustLoad(
      "devices:\ncollectors:\n  sysfs:\n  max_gids_per_port: ~\nresponder:\nprober:\npeers:\n"
      "peer_files:\nmodules:\n");
  EXPECT_TRUE(cfg.collectors.sysfs);
  EXPECT_EQ(cfg.collectors.max_gids_per_port, 16);
  EXPECT_TRUE(cfg.modules.empty());
}

TEST(LoaderTest, FullConfigSetsEveryField) {
  auto loaded = LoadFile(testing::Fixture("valid-full.yml"));
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const Config& cfg = *loaded;
  EXPECT_EQ(cfg.source_file, testing::Fixture("valid-full.yml"));
  EXPECT_EQ(cfg.devices.include, "rxe[0-9]+");
  EXPECT_EQ(cfg.devices.exclude, "rxe9");
  EXPECT_FALSE(cfg.collectors.rdma_netlink);
  EXPECT_FALSE(cfg.collectors.sysfs);
  EXPECT_FALSE(cfg.collectors.rtnetlink);
  EXPECT_FALSE(cfg.collectors.host);
  EXPECT_EQ(cfg.collectors.hw_counter_source, HwCounterSource::kNetlink);
  EXPECT_EQ(cfg.collectors.max_gids_per_port, 4);

  EXPECT_TRUE(cfg.responder.enabled);
  EXPECT_EQ(cfg.responder.listen_addresses,
            (std::vector<std::string>{":19792", "10.0.0.1:19793", "[::1]:19794",
                                      "localhost:19795"}));
  EXPECT_EQ(cfg.responder.allowed_cidrs, (std::vector<std::string>{"10.0.0.0/8", "fd00::/64"}));
  EXPECT_EQ(cfg.responder.psk_file, testing::Fixture("responder.psk"));  // relative to the file
  EXPECT_EQ(cfg.responder.max_sessions, 8u);
  EXPECT_EQ(cfg.responder.max_buffer_bytes, 8u << 20);
  EXPECT_EQ(cfg.responder.max_session_duration, seconds(90));
  EXPECT_EQ(cfg.responder.max_message_bytes, 8192u);

  EXPECT_EQ(cfg.prober.max_concurrent, 4u);
  EXPECT_EQ(cfg.prober.max_bandwidth_per_device, 2u);
  EXPECT_EQ(cfg.prober.byte_budget_per_second, 100u << 20);
  EXPECT_EQ(cfg.prober.psk_file, "/etc/rxe_exporter/prober.psk");
  EXPECT_EQ(cfg.prober.history_per_pair, 50u);

  ASSERT_EQ(cfg.peers.size(), 3u);
  EXPECT_EQ(cfg.peers[0].name, "host-b");
  EXPECT_EQ(cfg.peers[0].address, "10.0.0.2");
  EXPECT_EQ(cfg.peers[0].port, 19800);
  EXPECT_EQ(cfg.peers[0].labels,
            (std::map<std::string, std::string>{{"rack", "r1"}, {"zone", "z1"}}));
  EXPECT_EQ(cfg.peers[1].address, "host-c.example.org");
  EXPECT_EQ(cfg.peers[1].port, 19792);
  EXPECT_EQ(cfg.peers[2].address, "fd00::3");

  ASSERT_EQ(cfg.modules.size(), 2u);
  const Module& bw = cfg.modules.at("write_bw_64k");
  EXPECT_EQ(bw.name, "write_bw_64k");
  EXPECT_EQ(bw.type, ProbeType::kWriteBw);
  EXPECT_EQ(bw.interval, seconds(120));
  EXPECT_EQ(bw.timeout, seconds(20));
  EXPECT_EQ(bw.peers, (std::vector<std::string>{"host-b", "v6"}));
  EXPECT_EQ(bw.device, "rxe0");
  EXPECT_EQ(bw.size, 1u << 20);
  EXPECT_EQ(bw.mtu, 1024u);
  EXPECT_EQ(bw.qps, 4u);
  EXPECT_EQ(bw.post_list, 8u);
  EXPECT_EQ(bw.cq_moderation, 4u);
  EXPECT_EQ(bw.tx_depth, 256u);
  EXPECT_EQ(bw.inline_size, 128u);
  EXPECT_EQ(bw.duration, seconds(5));
  EXPECT_EQ(bw.gid_index, 3);
  EXPECT_EQ(bw.qp_timeout, 18u);

  const Module& lat = cfg.modules.at("send_lat");
  EXPECT_EQ(lat.type, ProbeType::kSendLat);
  EXPECT_EQ(lat.interval, seconds(1));
  EXPECT_EQ(lat.timeout, milliseconds(250));
  EXPECT_EQ(lat.iterations, 5000u);
  EXPECT_EQ(lat.size, 64u);
  EXPECT_FALSE(lat.mtu.has_value());
  EXPECT_FALSE(lat.gid_index.has_value());
  EXPECT_EQ(lat.qp_timeout, 14u);  // perftest's -u default
  EXPECT_TRUE(lat.peers.empty());
}

TEST(LoaderTest, PerTypeDefaults) {
  const Config cfg = MustLoad(
      "modules:\n"
      "  wb: {type: write_bw}\n  sb: {type: send_bw}\n"
      "  wl: {type: write_lat}\n  sl: {type: send_lat}\n"
      "  pl: {type: write_bw, post_list: 16}\n");
  for (const char* name : {"wb", "sb"}) {
    const Module& m = cfg.modules.at(name);
    EXPECT_EQ(m.size, 65536u) << name;
    EXPECT_EQ(m.tx_depth, 128u) << name;
    EXPECT_EQ(m.cq_moderation, 1u) << name;
    EXPECT_EQ(m.duration, seconds(1)) << name;
    EXPECT_EQ(m.interval, seconds(60)) << name;
    EXPECT_EQ(m.timeout, seconds(10)) << name;
    EXPECT_FALSE(m.mtu.has_value()) << name;
    EXPECT_FALSE(m.gid_index.has_value()) << name;
  }
  for (const char* name : {"wl", "sl"}) {
    const Module& m = cfg.modules.at(name);
    EXPECT_EQ(m.size, 2u) << name;
    EXPECT_EQ(m.tx_depth, 1u) << name;
    EXPECT_EQ(m.qps, 1u) << name;
    EXPECT_EQ(m.iterations, 1000u) << name;
  }
  EXPECT_EQ(cfg.modules.at("wb").type, ProbeType::kWriteBw);
  EXPECT_EQ(cfg.modules.at("sb").type, ProbeType::kSendBw);
  EXPECT_EQ(cfg.modules.at("wl").type, ProbeType::kWriteLat);
  EXPECT_EQ(cfg.modules.at("sl").type, ProbeType::kSendLat);
  // perftest: a post list without an explicit cq_moderation moderates every list.
  EXPECT_EQ(cfg.modules.at("pl").cq_moderation, 16u);
}

// perftest checks "post list size must be a multiple of CQ moderation" only for post lists:
// ib_write_bw's own defaults are -l 1 -Q 100, and the article's sweep uses -Q 32 alone.
TEST(LoaderTest, CqModerationWithoutPostList) {
  const Config cfg = MustLoad(
      "modules:\n"
      "  q32: {type: write_bw, cq_moderation: 32}\n"
      "  q100: {type: send_bw, cq_moderation: 100, post_list: 1}\n"
      "  pl: {type: write_bw, post_list: 64, cq_moderation: 32}\n");
  EXPECT_EQ(cfg.modules.at("q32").cq_moderation, 32u);
  EXPECT_EQ(cfg.modules.at("q32").post_list, 1u);
  EXPECT_EQ(cfg.modules.at("q100").cq_moderation, 100u);
  EXPECT_EQ(cfg.modules.at("pl").cq_moderation, 32u);
}

TEST(LoaderTest, ScalarForms) {
  const Config cfg = MustLoad(
      "collectors: {sysfs: False, host: TRUE, max_gids_per_port: \"8\"}\n"
      "responder: {max_buffer_bytes: 65536, max_message_bytes: 1KiB, max_session_duration: 1m}\n"
      "modules:\n"
      "  bw: {type: write_bw, size: 64KiB, inline_size: 0B, timeout: 1500ms, interval: 1h30m}\n");
  EXPECT_FALSE(cfg.collectors.sysfs);
  EXPECT_TRUE(cfg.collectors.host);
  EXPECT_EQ(cfg.collectors.max_gids_per_port, 8);
  EXPECT_EQ(cfg.responder.max_buffer_bytes, 65536u);
  EXPECT_EQ(cfg.responder.max_message_bytes, 1024u);
  EXPECT_EQ(cfg.responder.max_session_duration, seconds(60));
  EXPECT_EQ(cfg.modules.at("bw").size, 65536u);
  EXPECT_EQ(cfg.modules.at("bw").timeout, milliseconds(1500));
  EXPECT_EQ(cfg.modules.at("bw").interval, seconds(5400));
}

TEST(LoaderTest, AnchorsAndAliases) {
  const Config cfg = MustLoad(
      "peers:\n  - {name: b, address: 10.0.0.2, labels: &l {rack: r1}}\n"
      "  - {name: c, address: 10.0.0.3, labels: *l}\n");
  EXPECT_EQ(cfg.peers[1].labels.at("rack"), "r1");
}

TEST(LoaderTest, ResponderMayBeDisabledWithoutAddresses) {
  const Config cfg = MustLoad("responder: {enabled: false, listen_addresses: []}\n");
  EXPECT_FALSE(cfg.responder.enabled);
  EXPECT_TRUE(cfg.responder.listen_addresses.empty());
}

TEST(LoaderTest, RelativePskFileWithoutDirectoryStaysRelative) {
  const Config cfg = MustLoad("prober: {psk_file: key.psk}\n", "rxe.yml");
  EXPECT_EQ(cfg.prober.psk_file, "key.psk");
  const Config cfg2 = MustLoad("prober: {psk_file: key.psk}\n", "/etc/rxe/rxe.yml");
  EXPECT_EQ(cfg2.prober.psk_file, "/etc/rxe/key.psk");
}

TEST(LoaderTest, ReportsSyntaxErrorsWithPosition) {
  EXPECT_EQ(ErrorOf("collectors:\n  sysfs: true\n bad"),
            "t.yml:3:2: invalid YAML: end of map not found");
  EXPECT_EQ(ErrorOf("collectors: {sysfs: true: false}"),
            "t.yml:1:25: invalid YAML: end of map flow not found");
  EXPECT_EQ(ErrorOf("devices: {include: \"rxe"), "t.yml:1:24: invalid YAML: illegal EOF in scalar");
  EXPECT_EQ(ErrorOf("peers: *nowhere"),
            "t.yml:1:8: invalid YAML: the referenced anchor is not defined");
}

TEST(LoaderTest, NeverThrowsOnHostileInput) {
  const std::string deep(20000, '[');
  const std::string inputs[] = {deep, std::string("\0\1\2\xff", 4), "\t- a", "!!binary x",
                                "? [a]\n: b\n", "modules: {bw: [1, 2]}", "peers: [[1]]",
                                "peers: [~]", "modules: {bw: {type: {a: b}}}"};
  for (const auto& yaml : inputs) {
    auto cfg = LoadString(yaml, "hostile.yml");
    EXPECT_FALSE(cfg.ok()) << yaml.substr(0, 40);
  }
}

TEST(LoaderTest, MissingFileCapturesErrno) {
  const std::string path = testing::Fixture("does-not-exist.yml");
  auto cfg = LoadFile(path);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message, "open " + path + ": No such file or directory");
  EXPECT_EQ(cfg.error().sys_errno, ENOENT);
  EXPECT_EQ(cfg.error().code, ErrorCode::kNotFound);
}

TEST(LoaderTest, DirectoryIsNotAConfigFile) {
  auto cfg = LoadFile(testing::FixtureDir());
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message,
            testing::FixtureDir() + ": is a directory, not a regular file; give the path of a file");
  EXPECT_EQ(cfg.error().code, ErrorCode::kInvalidArgument);
}

TEST(LoaderTest, FifoIsRejectedInsteadOfBlockingTheReload) {
  char tmpl[] = "/tmp/rxe_loader_fifo.XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  const std::string fifo = dir + "/rxe_exporter.yml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto cfg = LoadFile(fifo);  // nothing writes to it: a blocking open() would never return
  ::unlink(fifo.c_str());
  ::rmdir(dir.c_str());
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message, fifo + ": is a FIFO, not a regular file; give the path of a file");
}

TEST(LoaderTest, WrongTypesInNestedPlaces) {
  EXPECT_EQ(ErrorOf("peers: [~]\n"),
            "t.yml:1:9: peers[0]: must be a map with name and address, got null");
  EXPECT_EQ(ErrorOf("peers: [[1]]\n"),
            "t.yml:1:9: peers[0]: must be a map with name and address, got a list");
  EXPECT_EQ(ErrorOf("? [a]\n: b\n"), "t.yml:1:3: keys must be strings, got a list");
  EXPECT_EQ(ErrorOf("modules: {bw: [1]}\n"), "t.yml:1:15: modules.bw: must be a map, got a list");
  EXPECT_EQ(ErrorOf("peers: [{name: b, address: 10.0.0.2, labels: {rack: [r1]}}]\n"),
            "t.yml:1:53: peers[0].labels.rack: must be a string, got a list");
  EXPECT_EQ(ErrorOf("responder: {listen_addresses: :19792}\n"),
            "t.yml:1:31: responder.listen_addresses: must be a list of strings, got \":19792\"");
  EXPECT_EQ(ErrorOf("collectors: {max_gids_per_port: -1}\n"),
            "t.yml:1:33: collectors.max_gids_per_port: must be between 0 and 1024, got -1");
  EXPECT_EQ(ErrorOf("collectors: {max_gids_per_port: 1e3}\n"),
            "t.yml:1:33: collectors.max_gids_per_port: must be an integer between 0 and 1024, "
            "got \"1e3\"");
}

}  // namespace
}  // namespace rxe::config
