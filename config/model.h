// The typed configuration model. Defaults live in the member initialisers;
// config/loader.{h,cc} overlays YAML on top and validates everything.
// Every field here is documented in README.md ("Configuration reference").
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rxe::config {

using Duration = std::chrono::milliseconds;

/// Regex include/exclude filter over RDMA device names (node_exporter style).
struct DeviceFilter {
  std::string include = ".*";  // ECMAScript regex, anchored (full match)
  std::string exclude;         // empty = exclude nothing
};

enum class HwCounterSource { kAuto, kNetlink, kSysfs };

struct CollectorsConfig {
  bool rdma_netlink = true;  // RDMA netlink: hw counters (primary), resource counts
  bool sysfs = true;         // device/port info, state, rate, GIDs, counters/ (and hw_counters fallback)
  bool rtnetlink = true;     // netdev under each RDMA port
  bool host = true;          // host cost (softirq per CPU) — issue 5
  HwCounterSource hw_counter_source = HwCounterSource::kAuto;
  int max_gids_per_port = 16;  // bound on rxe_port_gid_info series per port (0..1024)
};

/// A probe target. `address` is an IP literal or host name; the control
/// connection goes to address:port, RDMA traffic to the RoCE v2 GID of that IP.
struct Peer {
  std::string name;
  std::string address;
  uint16_t port = 19792;
  std::map<std::string, std::string> labels;  // extra labels (low cardinality)
};

// --- Mesh identity and subset selection (issue 15; config/module_peers.h) ---

/// R-Pingmesh-style subset of a module's peers (config/peer_subset.h): every peer sharing my
/// value of `group_label` plus `per_other_group` sampled from each other group.
struct SubsetSpec {
  std::string group_label;         // e.g. "rack"; peers without it form the group ""
  uint32_t per_other_group = 2;    // N sampled peers from each group other than mine
  std::string seed;                // changes every source's sample at once (e.g. to rotate)
};

/// Who this host is in the mesh (prober.self).
struct SelfConfig {
  std::string name;  // a peer with this name is never probed; "" = not set
  /// This host's labels; nullopt = the labels of the peer named `name` (none if no such peer).
  std::optional<std::map<std::string, std::string>> labels;
};

// --- end of the mesh block ---

/// kUdPing is the continuous UD latency mesh (probes/ud_*): it never runs as a per-peer
/// RC session; over the control protocol it only fetches the peer's UD address.
enum class ProbeType { kWriteBw, kSendBw, kSendLat, kWriteLat, kUdPing };

/// A named probe module (blackbox_exporter style). Parameters have perftest's
/// meaning; zero/nullopt means "the per-type default" where documented.
struct Module {
  std::string name;
  ProbeType type = ProbeType::kWriteBw;
  Duration interval{std::chrono::seconds(60)};
  Duration timeout{std::chrono::seconds(10)};
  std::vector<std::string> peers;  // peer names; empty = all peers
  std::string device;              // local RDMA device; empty = the one that routes to the peer
  uint32_t size = 0;               // bytes; 0 = 65536 for bandwidth, 2 for latency (perftest -s)
  std::optional<uint32_t> mtu;     // 256..4096; nullopt = "auto" = port active MTU (perftest -m)
  uint32_t qps = 1;                // perftest -q
  uint32_t post_list = 1;          // perftest -l
  uint32_t cq_moderation = 1;      // perftest -Q (bandwidth only)
  uint32_t tx_depth = 128;         // perftest -t (bandwidth; latency uses 1)
  uint32_t inline_size = 0;        // perftest -I; 0 = no inline; max 512 on rxe
  Duration duration{std::chrono::seconds(1)};  // bandwidth (perftest -D), capped at 10 s
  uint32_t iterations = 1000;      // latency (perftest -n), bounded by timeout
  std::optional<int> gid_index;    // nullopt = "auto" (RoCE v2 GID of the local IP routing to the peer)
  uint32_t qp_timeout = 14;        // perftest -u: local ACK timeout 4.096 us x 2^N (14 = ~67 ms); 0 = infinite
  bool use_event = false;          // send_lat: sleep on completion events, not busy-poll (perftest -e)
  // Mesh (issue 15): nullopt = no subset, all the module's peers (config::ModulePeers).
  std::optional<SubsetSpec> subset;
  std::string aggregate_by;        // ud_ping: export per (module, this peer label's value); "" = per peer
};

/// ud_ping module defaults and bounds (the loader applies them for type: ud_ping).
inline constexpr Duration kUdPingDefaultInterval{std::chrono::seconds(10)};
inline constexpr Duration kUdPingDefaultTimeout{std::chrono::seconds(1)};
inline constexpr uint32_t kUdPingDefaultSize = 64;  // = the ud_ping wire header
inline constexpr uint32_t kUdPingMinSize = 64;
inline constexpr uint32_t kUdPingMaxSize = 1024;    // fits one packet at rxe's usual active MTU

/// Pre-shared-key authentication and admission control for the responder.
struct ResponderConfig {
  bool enabled = true;
  std::vector<std::string> listen_addresses{":19792"};
  std::vector<std::string> allowed_cidrs;  // in addition to configured peers' addresses
  std::string psk_file;                    // empty = no authentication
  uint32_t max_sessions = 4;
  uint64_t max_buffer_bytes = 4u << 20;    // per-session MR cap
  Duration max_session_duration{std::chrono::seconds(30)};
  uint32_t max_message_bytes = 4096;       // control message cap
};

/// Default cap on (module, peer) pairs: each pair exports about 42 series (~3.2 KB of
/// /metrics text), so 1000 pairs are ~41,500 series and 3.2 MB per scrape.
inline constexpr uint32_t kDefaultMaxPairs = 1000;
inline constexpr uint32_t kMaxMaxPairs = 100000;

struct ProberConfig {
  uint32_t max_concurrent = 2;               // probes at once, all devices
  uint32_t max_bandwidth_per_device = 1;     // bandwidth probes at once per local device
  uint64_t byte_budget_per_second = 0;       // 0 = unlimited; average probe bytes/s
  std::string psk_file;                      // key presented to peers; empty = none
  uint32_t history_per_pair = 20;            // results kept for the /debug/probes view
  uint32_t max_pairs = kDefaultMaxPairs;      // (module, peer) pairs; more is a config error
  SelfConfig self;                           // mesh identity (issue 15)
};

struct Config {
  std::string source_file;  // path the config was loaded from ("" = defaults)
  DeviceFilter devices;
  CollectorsConfig collectors;
  ResponderConfig responder;
  ProberConfig prober;
  std::vector<Peer> peers;                 // static peers
  std::vector<std::string> peer_files;     // file-based discovery (peer list or Prometheus file_sd), globs
  std::vector<Peer> file_peers;            // peers read from peer_files at load time (config/peer_file.h)
  std::map<std::string, Module> modules;   // by name
};

const char* ProbeTypeName(ProbeType t);
bool IsBandwidth(ProbeType t);

}  // namespace rxe::config
