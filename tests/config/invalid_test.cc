// One fixture per validation rule, with the exact message it must produce
// (blackbox_exporter style). Paths in messages are relative to the fixture dir.
#include <gtest/gtest.h>

#include <filesystem>

#include "config/loader.h"
#include "tests/config/fixture_util.h"

namespace rxe::config {
namespace {

struct InvalidCase {
  const char* file;
  const char* message;
};

const InvalidCase kCases[] = {
    // YAML structure
    {"invalid-syntax.yml", "invalid-syntax.yml:3:1: invalid YAML: end of sequence flow not found"},
    {"invalid-multiple-documents.yml",
     "invalid-multiple-documents.yml:3:1: more than one YAML document; the file must hold a "
     "single document"},
    {"invalid-top-level-list.yml",
     "invalid-top-level-list.yml:1:1: must be a map of sections (devices, collectors, responder, "
     "prober, peers, peer_files, modules), got a list"},
    {"invalid-unknown-top-key.yml",
     "invalid-unknown-top-key.yml:3:1: modulez: unknown key; allowed keys: devices, collectors, "
     "responder, prober, peers, peer_files, modules"},
    {"invalid-unknown-collector-key.yml",
     "invalid-unknown-collector-key.yml:3:3: collectors.sysfss: unknown key; allowed keys: "
     "rdma_netlink, sysfs, rtnetlink, host, hw_counter_source, max_gids_per_port"},
    {"invalid-duplicate-key.yml",
     "invalid-duplicate-key.yml:4:3: collectors.sysfs: duplicate key, first given at line 2; each "
     "key may appear once"},
    {"invalid-section-type.yml",
     "invalid-section-type.yml:1:10: devices: must be a map, got \"rxe0\""},
    {"invalid-string-type.yml",
     "invalid-string-type.yml:2:13: prober.psk_file: must be a string, got a list"},
    // devices, collectors
    {"invalid-device-regex.yml",
     "invalid-device-regex.yml:2:12: devices.include: invalid regular expression \"rxe(0|1\" "
     "(unbalanced ( )); must be an ECMAScript regular expression"},
    {"invalid-device-include-empty.yml",
     "invalid-device-include-empty.yml:2:12: devices.include: must not be empty (it would match no "
     "device); use \".*\" for all devices"},
    {"invalid-bool.yml",
     "invalid-bool.yml:2:9: collectors.host: must be true or false, got \"yes\""},
    {"invalid-hw-counter-source.yml",
     "invalid-hw-counter-source.yml:2:22: collectors.hw_counter_source: must be one of auto, "
     "netlink, sysfs, got \"both\""},
    {"invalid-max-gids.yml",
     "invalid-max-gids.yml:2:22: collectors.max_gids_per_port: must be between 0 and 1024, got "
     "2000"},
    // responder, prober
    {"invalid-listen-address-no-port.yml",
     "invalid-listen-address-no-port.yml:2:22: responder.listen_addresses[0]: invalid listen "
     "address \"10.0.0.1\" (missing port); must be host:port, :port or [ipv6]:port"},
    {"invalid-listen-address-ipv6.yml",
     "invalid-listen-address-ipv6.yml:2:32: responder.listen_addresses[1]: invalid listen address "
     "\"::1:19792\" (IPv6 addresses need brackets); must be host:port, :port or [ipv6]:port"},
    {"invalid-listen-address-port.yml",
     "invalid-listen-address-port.yml:3:7: responder.listen_addresses[0]: invalid listen address "
     "\":70000\" (port must be 1..65535); must be host:port, :port or [ipv6]:port"},
    {"invalid-listen-addresses-empty.yml",
     "invalid-listen-addresses-empty.yml:3:21: responder.listen_addresses: must not be empty while "
     "the responder is enabled; give at least one address like \":19792\" or set "
     "responder.enabled to false"},
    {"invalid-cidr-prefix.yml",
     "invalid-cidr-prefix.yml:2:19: responder.allowed_cidrs[0]: invalid CIDR \"10.0.0.0/33\" "
     "(prefix length must be 0..32); must be ADDRESS/PREFIX like 10.0.0.0/8 or fd00::/64"},
    {"invalid-cidr-host-bits.yml",
     "invalid-cidr-host-bits.yml:4:7: responder.allowed_cidrs[1]: invalid CIDR \"10.0.0.1/8\" "
     "(host bits are set); must be ADDRESS/PREFIX like 10.0.0.0/8 or fd00::/64"},
    {"invalid-max-buffer-bytes.yml",
     "invalid-max-buffer-bytes.yml:2:21: responder.max_buffer_bytes: must be between 4KiB and "
     "1GiB, got 1KiB"},
    {"invalid-session-duration.yml",
     "invalid-session-duration.yml:2:25: responder.max_session_duration: must be a duration like "
     "500ms, 10s or 1m30s, got \"30\""},
    {"invalid-prober-range.yml",
     "invalid-prober-range.yml:2:19: prober.max_concurrent: must be between 1 and 64, got 0"},
    // peers
    {"invalid-peers-not-list.yml",
     "invalid-peers-not-list.yml:2:3: peers: must be a list of peers, got a map"},
    {"invalid-peer-name.yml",
     "invalid-peer-name.yml:2:11: peers[0].name: invalid peer name \"host b\"; must match "
     "[a-zA-Z0-9_.-]+"},
    {"invalid-peer-missing-address.yml",
     "invalid-peer-missing-address.yml:2:5: peers[0].address: required key is missing; must be an "
     "IPv4 or IPv6 address or a host name"},
    {"invalid-peer-address.yml",
     "invalid-peer-address.yml:2:29: peers[0].address: invalid address \"10.0.0.256\" (invalid "
     "IPv4 address); must be an IPv4 or IPv6 address or a host name"},
    {"invalid-peer-port.yml",
     "invalid-peer-port.yml:2:45: peers[0].port: must be between 1 and 65535, got 0"},
    {"invalid-peer-duplicate.yml",
     "invalid-peer-duplicate.yml:4:11: peers[1].name: duplicate peer name \"host-b\", first "
     "defined at line 2; peer names must be unique"},
    {"invalid-label-name.yml",
     "invalid-label-name.yml:5:7: peers[0].labels.1rack: invalid label name; must match "
     "[a-zA-Z_][a-zA-Z0-9_]* and not start with __"},
    {"invalid-label-reserved.yml",
     "invalid-label-reserved.yml:4:24: peers[0].labels.peer: label name is used by the exporter; "
     "must not be one of peer, module, device, port, reason, counter, instance, job, le"},
    // peer_files
    {"invalid-peer-files-extension.yml",
     "invalid-peer-files-extension.yml:1:14: peer_files[0]: \"peers.d/*\" does not end in .yml, "
     ".yaml or .json; must be a file name or glob of YAML or JSON files like peers.d/*.yml or "
     "file_sd/*.json"},
    {"invalid-peer-file-content.yml",
     "peers-invalid/a.yml:3:9: [0].port: must be between 1 and 65535, got 99999\n"
     "peers-invalid/a.yml:4:3: [1].address: required key is missing; must be an IPv4 or IPv6 "
     "address or a host name"},
    {"invalid-peer-file-clash.yml",
     "peers-clash/a.yml:2:10: [1].name: peer \"host-b\" is already defined in the peers section of "
     "invalid-peer-file-clash.yml; peer names must be unique across peers and all peer_files\n"
     "peers-clash/b.yml:1:10: [0].name: peer \"host-c\" is already defined in peers-clash/a.yml; "
     "peer names must be unique across peers and all peer_files"},
    // modules: structure
    {"invalid-module-missing-type.yml",
     "invalid-module-missing-type.yml:3:5: modules.bw.type: required key is missing; must be one "
     "of write_bw, send_bw, write_lat, send_lat, ud_ping"},
    {"invalid-module-type.yml",
     "invalid-module-type.yml:3:11: modules.bw.type: must be one of write_bw, send_bw, write_lat, "
     "send_lat, ud_ping, got \"write_bww\""},
    {"invalid-module-empty.yml",
     "invalid-module-empty.yml:2:3: modules.bw: empty module; must be a map with at least a type "
     "(write_bw, send_bw, write_lat, send_lat, ud_ping)"},
    {"invalid-module-name.yml",
     "invalid-module-name.yml:2:3: modules.bw 64k: invalid module name; must match "
     "[a-zA-Z0-9_.-]+"},
    {"invalid-module-duplicate.yml",
     "invalid-module-duplicate.yml:4:3: modules.bw: duplicate key, first given at line 2; each key "
     "may appear once"},
    {"invalid-module-unknown-key.yml",
     "invalid-module-unknown-key.yml:4:5: modules.bw.qp: unknown key; allowed keys: type, "
     "interval, timeout, peers, device, size, mtu, qps, post_list, cq_moderation, tx_depth, "
     "inline_size, duration, iterations, gid_index, qp_timeout, use_event, aggregate_by, subset"},
    {"invalid-max-pairs.yml",
     "invalid-max-pairs.yml:8:3: modules: 2 modules x 3 peers make 5 (module, peer) pairs, above "
     "prober.max_pairs 4; each pair exports about 42 series (~3.2 KB per scrape): list fewer "
     "peers in the modules' peers or raise prober.max_pairs (at most 100000)"},
    {"invalid-max-pairs-range.yml",
     "invalid-max-pairs-range.yml:2:14: prober.max_pairs: must be between 1 and 100000, got "
     "200000"},
    {"invalid-module-unknown-peer.yml",
     "invalid-module-unknown-peer.yml:6:21: modules.bw.peers[1]: unknown peer \"host-c\"; must "
     "name a peer from peers or peer_files (known peers: host-b)"},
    {"invalid-module-duplicate-peer.yml",
     "invalid-module-duplicate-peer.yml:6:21: modules.bw.peers[1]: duplicate peer \"host-b\"; list "
     "each peer once"},
    {"invalid-module-device.yml",
     "invalid-module-device.yml:4:13: modules.bw.device: invalid device name \"rxe/0\"; must be an "
     "RDMA device name like rxe0 ([a-zA-Z0-9_.-], at most 63 characters) or empty for the device "
     "that routes to the peer"},
    // modules: values
    {"invalid-module-qps.yml",
     "invalid-module-qps.yml:4:10: modules.bw.qps: must be between 1 and 64, got 0"},
    {"invalid-module-qp-timeout.yml",
     "invalid-module-qp-timeout.yml:4:17: modules.bw.qp_timeout: must be between 0 and 31, got 32"},
    {"invalid-module-size.yml",
     "invalid-module-size.yml:4:11: modules.bw.size: must be between 1 and 8MiB, got 16MiB"},
    {"invalid-module-size-suffix.yml",
     "invalid-module-size-suffix.yml:4:11: modules.bw.size: must be a byte size between 1 and 8MiB "
     "(an integer, optionally with a B, KiB, MiB or GiB suffix), got \"64KB\""},
    {"invalid-module-mtu.yml",
     "invalid-module-mtu.yml:4:10: modules.bw.mtu: must be auto, 256, 512, 1024, 2048 or 4096, "
     "got 1500"},
    {"invalid-module-gid-index.yml",
     "invalid-module-gid-index.yml:4:16: modules.lat.gid_index: must be auto or an integer between "
     "0 and 1023, got 1024"},
    {"invalid-module-inline-size.yml",
     "invalid-module-inline-size.yml:4:18: modules.lat.inline_size: must be between 0 and 512, got "
     "1KiB"},
    {"invalid-module-duration-cap.yml",
     "invalid-module-duration-cap.yml:5:15: modules.bw.duration: must be between 100ms and 10s, "
     "got 15s"},
    {"invalid-module-duration-syntax.yml",
     "invalid-module-duration-syntax.yml:4:15: modules.bw.duration: must be a duration like 500ms, "
     "10s or 1m30s, got \"1.5s\""},
    {"invalid-module-duration-order.yml",
     "invalid-module-duration-order.yml:4:15: modules.bw.interval: must be a duration like 500ms, "
     "10s or 1m30s, got \"30s1m\""},
    {"invalid-module-iterations.yml",
     "invalid-module-iterations.yml:4:17: modules.lat.iterations: must be between 1 and 1000000, "
     "got 2000000"},
    // modules: per-type and cross-field rules
    {"invalid-module-latency-bandwidth-key.yml",
     "invalid-module-latency-bandwidth-key.yml:4:5: modules.lat.tx_depth: only applies to "
     "bandwidth modules (write_bw, send_bw); remove it from this send_lat module"},
    {"invalid-module-bandwidth-iterations.yml",
     "invalid-module-bandwidth-iterations.yml:4:5: modules.bw.iterations: only applies to latency "
     "modules (write_lat, send_lat); remove it from this write_bw module"},
    {"invalid-module-timeout-not-above-duration.yml",
     "invalid-module-timeout-not-above-duration.yml:4:14: modules.bw.timeout: must be greater than "
     "duration (2s), got 2s"},
    {"invalid-module-duration-default-timeout.yml",
     "invalid-module-duration-default-timeout.yml:4:15: modules.bw.duration: must be less than "
     "timeout (10s), got 10s"},
    {"invalid-module-interval-below-timeout.yml",
     "invalid-module-interval-below-timeout.yml:4:15: modules.lat.interval: must be at least "
     "timeout (10s), got 5s"},
    {"invalid-module-post-list.yml",
     "invalid-module-post-list.yml:5:16: modules.bw.post_list: must be at most tx_depth (64), got "
     "128"},
    {"invalid-module-cq-moderation.yml",
     "invalid-module-cq-moderation.yml:4:20: modules.bw.cq_moderation: must be at most tx_depth "
     "(128), got 256"},
    {"invalid-module-cq-moderation-divides.yml",
     "invalid-module-cq-moderation-divides.yml:5:20: modules.bw.cq_moderation: must divide "
     "post_list (8), got 3"},
    // modules: ud_ping
    {"invalid-udping-rc-key.yml",
     "invalid-udping-rc-key.yml:4:5: modules.mesh.iterations: only applies to RC probe modules "
     "(write_bw, send_bw, write_lat, send_lat); remove it from this ud_ping module (its keys: "
     "type, interval, timeout, size, peers, device, aggregate_by)"},
    {"invalid-udping-timeout-not-below-interval.yml",
     "invalid-udping-timeout-not-below-interval.yml:5:14: modules.mesh.timeout: must be less than "
     "interval (1s), got 1s"},
    {"invalid-udping-size.yml",
     "invalid-udping-size.yml:4:11: modules.mesh.size: must be between 64 and 1KiB, got 2KiB"},
    {"invalid-udping-aggregate-by.yml",
     "invalid-udping-aggregate-by.yml:4:19: modules.mesh.aggregate_by: invalid label name "
     "\"peer\"; must be a peer label name ([a-zA-Z_][a-zA-Z0-9_]*, not one the exporter sets "
     "such as peer or module), e.g. rack"},
    {"invalid-module-use-event.yml",
     "invalid-module-use-event.yml:4:5: modules.lat.use_event: only applies to send_lat modules "
     "(perftest -e); remove it from this write_lat module"},
    {"invalid-aggregate-by-rc.yml",
     "invalid-aggregate-by-rc.yml:4:5: modules.lat.aggregate_by: only applies to ud_ping modules; "
     "remove it from this send_lat module"},
    {"invalid-udping-mixed-timing.yml",
     "invalid-udping-mixed-timing.yml:6:3: modules.slow: ud_ping modules share one UD endpoint and "
     "ping schedule per device, so they must have the same interval, timeout and size: module "
     "\"fast\" has interval 1s, timeout 500ms, size 64, this one interval 10s, timeout 1s, size "
     "64"},
    // all errors, sorted by position
    {"invalid-many-errors.yml",
     "invalid-many-errors.yml:2:10: collectors.sysfs: must be true or false, got \"maybe\"\n"
     "invalid-many-errors.yml:4:17: responder.max_sessions: must be between 1 and 256, got 0\n"
     "invalid-many-errors.yml:6:39: peers[0].colour: unknown key; allowed keys: name, address, "
     "port, labels\n"
     "invalid-many-errors.yml:10:10: modules.bw.qps: must be between 1 and 64, got 65\n"
     "invalid-many-errors.yml:11:13: modules.bw.peers[0]: unknown peer \"nobody\"; must name a "
     "peer from peers or peer_files (known peers: host-b)"},
};

class InvalidConfigTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidConfigTest, ReportsExactError) {
  const InvalidCase& c = GetParam();
  const auto cfg = LoadFile(testing::Fixture(c.file));
  ASSERT_FALSE(cfg.ok()) << c.file << " loaded without errors";
  EXPECT_EQ(cfg.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(testing::StripFixtureDir(cfg.error().message), c.message);
}

std::string CaseName(const ::testing::TestParamInfo<InvalidCase>& info) {
  std::string name = info.param.file;
  name = name.substr(0, name.find('.'));
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, InvalidConfigTest, ::testing::ValuesIn(kCases), CaseName);

// Every invalid-*.yml fixture has a case in the table above.
TEST(InvalidConfigTest, EveryFixtureIsCovered) {
  const auto dir = testing::FixtureDir();
  size_t fixtures = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("invalid-", 0) != 0) continue;
    ++fixtures;
    bool found = false;
    for (const auto& c : kCases) found = found || name == c.file;
    EXPECT_TRUE(found) << name << " has no expected message";
  }
  EXPECT_EQ(fixtures, std::size(kCases));
}

}  // namespace
}  // namespace rxe::config
