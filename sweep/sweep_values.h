// Value parsing and naming helpers behind sweep_plan.h (pure).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "sweep/sweep_plan.h"

namespace rxe::sweep {

/// One numeric value of `p` with its allowed range checked:
/// size 1..16MiB (binary suffixes), mtu 256|512|1024|2048|4096, qps 1..64,
/// post_list/cq_mod/tx_depth 1..8192, inline 0..512.
Result<uint64_t> ParseParamValue(Param p, std::string_view text);

/// Sets the parameter in `params` (post_list also sets cq_moderation to the
/// same value, as perftest does for -l: "CQ moderation will be the size of the post list").
void ApplyValue(Param p, uint64_t value, probes::SessionParams& params);

/// "write_bw", "send_bw", "write_lat", "send_lat" (also ib_write_bw style names).
std::optional<config::ProbeType> ParseProbeTypeName(std::string_view text);

/// Human name for titles and axes: "Message size", "RoCE MTU", "QPs", ...
std::string_view ParamTitle(Param p);
/// Axis unit text for the x axis ("bytes", "bytes", "", ...).
std::string_view ParamUnit(Param p);

/// The baseline point: `user` (a label or a value of the parameter) if given,
/// else the point equal to `article` (or "none" for cpu), else the first one.
Result<size_t> FindBaseline(const Plan& plan, const std::optional<std::string>& user,
                            std::optional<double> article);

}  // namespace rxe::sweep
