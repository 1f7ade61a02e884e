// `rxe_exporter sweep`: plan expansion (pure). A sweep varies ONE parameter
// over a list or range while every other parameter is held, repeats each
// point N times and compares every point with a baseline point, like the
// tables of the Soft-RoCE tuning study (ib_write_bw, docs/sweep.md).
//
// Value syntax of `--vary NAME=SPEC` (SPEC = comma-separated items):
//   size=64,512,4KiB,64KiB,1MiB     sizes: bytes or B/K/KiB/M/MiB/G/GiB (binary)
//   qps=1..8                        range; default step +1 (×2 for size and mtu)
//   post_list=1..32:x2              geometric step; `:+N` arithmetic step
//   mtu=512..4096                   256, 512, 1024, 2048 or 4096
//   cpu=none,0,2-3,0+2              one point per item: `none` or a CPU list
//                                   (`-` ranges, `+` joins: 0+2 = CPUs 0 and 2)
//   type=write_bw,send_bw           probe types (all bandwidth or all latency)
// Parameters: size, mtu, qps, post_list, cq_mod, tx_depth, inline, cpu, type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "config/model.h"
#include "probes/engine.h"

namespace rxe::sweep {

enum class Param { kSize, kMtu, kQps, kPostList, kCqMod, kTxDepth, kInline, kCpu, kType };

/// "size", "mtu", "qps", "post_list", "cq_mod", "tx_depth", "inline", "cpu", "type".
std::string_view ParamName(Param p);
/// Accepts the names above and the aliases post-list, cq-mod, cq_moderation,
/// tx-depth, inline_size, pin, q, l, s, m.
std::optional<Param> ParseParamName(std::string_view name);

/// CPU pinning of the probing thread for the duration of a point.
struct PinSpec {
  std::vector<int> cpus;  // sorted, unique; empty = not pinned (scheduler decides)
  bool none() const { return cpus.empty(); }
  /// "none" or "0", "0,2-3" (cpulist style).
  std::string Label() const;
  bool operator==(const PinSpec&) const = default;
};

/// Parses one `cpu=` item: "none" or a list like "0", "2-3", "0+2", "0+4-5".
Result<PinSpec> ParsePinSpec(std::string_view text);

/// One point: the full parameters of the probe and the pinning.
struct Point {
  std::string label;  // the varied value as shown: "64KiB", "4096", "0,2", "write_bw"
  double x = 0;       // numeric position for charts (the value, or the index for cpu/type)
  probes::SessionParams params;
  PinSpec pin;
};

/// What is measured: bandwidth in Gb/s (10^9 bit/s, as --report-gbits) or
/// one-way latency in µs (median of the probe's samples, perftest t_typical).
enum class Metric { kBandwidth, kLatency };

struct Plan {
  std::string name;   // output file stem: "size" or "03-qps" in the preset
  std::string title;  // chart/table title
  Param param = Param::kSize;
  Metric metric = Metric::kBandwidth;
  probes::SessionParams held;  // the parameters held constant (base)
  PinSpec held_pin;
  std::vector<Point> points;
  size_t baseline = 0;  // index into points
  int repeat = 3;
};

/// The base (held) parameters and options shared by every sweep of a run.
struct Base {
  probes::SessionParams params;  // type, size, mtu, ... (the defaults below)
  PinSpec pin;
  int repeat = 3;
  std::optional<std::string> baseline;  // `--baseline VALUE` (a point label or value)
};

/// The article's held values: write_bw, 64 KiB, MTU 4096, 1 QP, post list 1,
/// CQ moderation 1, tx depth 128, no inline, 1 s per bandwidth probe.
probes::SessionParams ArticleDefaults();

/// Expands `--vary SPEC` ("NAME=ITEMS") over `base`. Errors name the bad item.
Result<Plan> ExpandVary(std::string_view spec, const Base& base);

/// The six experiments of the study (write_bw, `repeat` each):
/// 01-size 64 B..1 MiB (baseline 64 KiB), 02-mtu 512..4096 (baseline 1024, as the
/// article's "vs 1024" column), 03-qps 1,2,4,8, 04-post_list 1..32, 05-cq_mod
/// 1..32 with 2 QPs, 06-cpu none vs CPU `pin_cpu` with 2 QPs (baseline none).
std::vector<Plan> ArticlePreset(int repeat, int pin_cpu = 0);

/// Validates every point's parameters (probes::ShapeSession with
/// `max_buffer_bytes`); the error names the point.
Status ValidatePlan(const Plan& plan, uint64_t max_buffer_bytes);

/// Text of a size for labels: 64 -> "64B", 4096 -> "4KiB", 1048576 -> "1MiB".
std::string SizeLabel(uint64_t bytes);

/// "type=write_bw size=64KiB mtu=4096 qps=1 post_list=1 cq_mod=1 tx_depth=128 inline=0 cpu=none"
/// without the varied parameter.
std::string HeldSummary(const Plan& plan);

}  // namespace rxe::sweep
