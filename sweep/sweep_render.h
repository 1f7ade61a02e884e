// Sweep renderers (pure): a terminal table with the article's columns, CSV,
// JSON and a self-contained SVG chart. Formats are described in docs/sweep.md;
// golden files in tests/fixtures/sweep/ pin them byte for byte.
#pragma once

#include <string>
#include <vector>

#include "sweep/sweep_result.h"

namespace rxe::sweep {

/// Aligned columns: value | median | min-max | change vs baseline | ok runs,
/// preceded by the title, the target and the held parameters.
std::string RenderTable(const Summary& s);

/// One row per finished point; header:
/// parameter,value,x,baseline,repeats,ok,failed,median_<unit>,min_<unit>,max_<unit>,
/// q1_<unit>,q3_<unit>,change_pct,samples,error   (<unit> = gbps or us)
std::string RenderCsv(const Summary& s);

/// A JSON object: sweep metadata, the held parameters and every finished point.
std::string RenderJson(const Summary& s);
/// {"sweeps": [ ... ]} for a run of several sweeps (the preset).
std::string RenderJsonRun(const std::vector<Summary>& sweeps, bool interrupted);

/// An SVG line chart: medians joined by a polyline, min-max error bars,
/// baseline marked and drawn as a dashed line, log2 x axis for size and MTU,
/// linear for counts, categorical for cpu/type; y axis from 0.
std::string RenderSvg(const Summary& s);

}  // namespace rxe::sweep
