// Hand-written SVG chart of a sweep (no dependencies; opens in any browser).
#include <algorithm>
#include <cmath>

#include "common/text_format.h"
#include "sweep/sweep_render.h"
#include "sweep/sweep_values.h"

namespace rxe::sweep {
namespace {

using textfmt::Fixed;
using textfmt::XmlEscape;

constexpr double kW = 720, kH = 440;
constexpr double kX0 = 80, kX1 = kW - 30, kY0 = 64, kY1 = kH - 80;  // plot area
constexpr double kPad = 24;  // inner horizontal padding of the plot area
constexpr const char* kLine = "#1f77b4";
constexpr const char* kBase = "#ff7f0e";
constexpr const char* kFail = "#d62728";

std::string F(double v) { return Fixed(v, 1); }

enum class Scale { kLog2, kLinear, kCategory };

Scale ScaleOf(const Summary& s) {
  if (s.param == Param::kCpu || s.param == Param::kType) return Scale::kCategory;
  bool positive = true;
  for (const auto& p : s.points) positive = positive && p.x > 0;
  if ((s.param == Param::kSize || s.param == Param::kMtu) && positive) return Scale::kLog2;
  return Scale::kLinear;
}

/// 1, 2 or 5 times a power of ten, >= raw.
double NiceStep(double raw) {
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw * (1 - 1e-9)) return m * p;
  }
  return 10 * p;
}

struct XMap {
  Scale scale;
  double lo = 0, hi = 0;
  double At(const PointSummary& p, size_t ordinal, size_t count) const {
    double u = scale == Scale::kLog2 ? std::log2(p.x) : p.x;
    if (scale == Scale::kCategory) {
      u = static_cast<double>(ordinal);
      if (count <= 1) return (kX0 + kX1) / 2;
      return kX0 + kPad + u / static_cast<double>(count - 1) * (kX1 - kX0 - 2 * kPad);
    }
    if (hi <= lo) return (kX0 + kX1) / 2;
    return kX0 + kPad + (u - lo) / (hi - lo) * (kX1 - kX0 - 2 * kPad);
  }
};

std::string AxisTitleX(const Summary& s, Scale scale) {
  std::string t = std::string(ParamTitle(s.param));
  const std::string unit(ParamUnit(s.param));
  if (!unit.empty()) t += " (" + unit + (scale == Scale::kLog2 ? ", log2 scale" : "") + ")";
  return t;
}

std::string AxisTitleY(const Summary& s) {
  return s.metric == Metric::kBandwidth ? "Bandwidth (Gb/s)" : "One-way latency, median (µs)";
}

}  // namespace

std::string RenderSvg(const Summary& s) {
  const Scale scale = ScaleOf(s);
  XMap xm{scale};
  bool first = true;
  double ymax = 0;
  for (const auto& p : s.points) {
    const double u = scale == Scale::kLog2 ? std::log2(p.x) : p.x;
    xm.lo = first ? u : std::min(xm.lo, u);
    xm.hi = first ? u : std::max(xm.hi, u);
    first = false;
    if (p.max) ymax = std::max(ymax, *p.max);
  }
  const double ystep = NiceStep(ymax > 0 ? ymax / 8 : 0.2);  // 4..8 intervals
  const double ytop = std::max(ystep, std::ceil(ymax / ystep - 1e-9) * ystep);
  const int ydec = std::max(0, static_cast<int>(-std::floor(std::log10(ystep) + 1e-9)));
  const int nticks = static_cast<int>(std::lround(ytop / ystep));
  auto Y = [&](double v) { return kY1 - v / ytop * (kY1 - kY0); };

  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"440\" viewBox=\"0 0 720 "
       "440\" "
       "font-family=\"sans-serif\" font-size=\"11\">\n";
  const std::string title = s.title + (s.target.empty() ? "" : " -> " + s.target);
  o += "<title>" + XmlEscape(title) + "</title>\n";
  o += "<rect width=\"720\" height=\"440\" fill=\"white\"/>\n";
  o += "<text x=\"360\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">" +
       XmlEscape(title) + "</text>\n";
  o += "<text x=\"360\" y=\"40\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555\">" +
       XmlEscape("held: " + s.held) + "</text>\n";
  // Y grid, ticks and labels.
  o += "<g stroke=\"#e0e0e0\">\n";
  for (int k = 0; k <= nticks; ++k) {
    const double v = k * ystep;
    o += "<line x1=\"" + F(kX0) + "\" y1=\"" + F(Y(v)) + "\" x2=\"" + F(kX1) + "\" y2=\"" +
         F(Y(v)) + "\"/>\n";
  }
  o += "</g>\n<g text-anchor=\"end\">\n";
  for (int k = 0; k <= nticks; ++k) {
    const double v = k * ystep;
    o += "<text x=\"" + F(kX0 - 6) + "\" y=\"" + F(Y(v) + 4) + "\">" + Fixed(v, ydec) + "</text>\n";
  }
  o += "</g>\n";
  // Axes.
  o += "<g stroke=\"#333\">\n<line x1=\"" + F(kX0) + "\" y1=\"" + F(kY1) + "\" x2=\"" + F(kX1) +
       "\" y2=\"" + F(kY1) + "\"/>\n<line x1=\"" + F(kX0) + "\" y1=\"" + F(kY0) + "\" x2=\"" +
       F(kX0) + "\" y2=\"" + F(kY1) + "\"/>\n</g>\n";
  // X ticks: one per point, labels skipped when they would overlap.
  std::vector<size_t> order(s.points.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<double> px(s.points.size());
  for (size_t i = 0; i < s.points.size(); ++i) px[i] = xm.At(s.points[i], i, s.points.size());
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return px[a] < px[b]; });
  o += "<g text-anchor=\"middle\">\n";
  double last_label = -1e9;
  for (size_t i : order) {
    o += "<line x1=\"" + F(px[i]) + "\" y1=\"" + F(kY1) + "\" x2=\"" + F(px[i]) + "\" y2=\"" +
         F(kY1 + 5) + "\" stroke=\"#333\"/>\n";
    if (px[i] - last_label < 40) continue;
    last_label = px[i];
    o += "<text x=\"" + F(px[i]) + "\" y=\"" + F(kY1 + 18) + "\">" + XmlEscape(s.points[i].label) +
         "</text>\n";
  }
  o += "</g>\n";
  o += "<text x=\"" + F((kX0 + kX1) / 2) + "\" y=\"" + F(kH - 40) +
       "\" text-anchor=\"middle\" "
       "font-size=\"12\">" +
       XmlEscape(AxisTitleX(s, scale)) + "</text>\n";
  o += "<text transform=\"translate(22," + F((kY0 + kY1) / 2) +
       ") rotate(-90)\" "
       "text-anchor=\"middle\" font-size=\"12\">" +
       XmlEscape(AxisTitleY(s)) + "</text>\n";
  // Baseline level.
  for (size_t i = 0; i < s.points.size(); ++i) {
    const auto& p = s.points[i];
    if (!p.is_baseline || !p.median) continue;
    o += "<line x1=\"" + F(kX0) + "\" y1=\"" + F(Y(*p.median)) + "\" x2=\"" + F(kX1) + "\" y2=\"" +
         F(Y(*p.median)) + "\" stroke=\"" + kBase + "\" stroke-dasharray=\"4 4\"/>\n";
  }
  // Error bars (min-max), then the median polyline and markers.
  o += "<g stroke=\"" + std::string(kLine) + "\">\n";
  for (size_t i : order) {
    const auto& p = s.points[i];
    if (!p.median) continue;
    const std::string x = F(px[i]);
    o += "<line x1=\"" + x + "\" y1=\"" + F(Y(*p.min)) + "\" x2=\"" + x + "\" y2=\"" +
         F(Y(*p.max)) + "\"/>\n";
    for (double v : {*p.min, *p.max}) {
      o += "<line x1=\"" + F(px[i] - 4) + "\" y1=\"" + F(Y(v)) + "\" x2=\"" + F(px[i] + 4) +
           "\" y2=\"" + F(Y(v)) + "\"/>\n";
    }
  }
  o += "</g>\n";
  // The median line, broken at failed points.
  std::string segment;
  size_t segment_points = 0;
  auto flush = [&] {
    if (segment_points > 1) {
      o += "<polyline fill=\"none\" stroke=\"" + std::string(kLine) +
           "\" stroke-width=\"2\" points=\"" + segment + "\"/>\n";
    }
    segment.clear();
    segment_points = 0;
  };
  for (size_t i : order) {
    if (!s.points[i].median) {
      flush();
      continue;
    }
    segment += (segment.empty() ? "" : " ") + F(px[i]) + "," + F(Y(*s.points[i].median));
    ++segment_points;
  }
  flush();
  const int dec = s.metric == Metric::kBandwidth ? 3 : 2;
  const std::string unit = MetricUnit(s.metric);
  for (size_t i : order) {
    const auto& p = s.points[i];
    if (!p.median) {
      o += "<text x=\"" + F(px[i]) + "\" y=\"" + F(kY1 - 6) + "\" text-anchor=\"middle\" fill=\"" +
           kFail + "\" font-size=\"14\">x<title>" +
           XmlEscape(p.label + ": failed: " + p.first_error) + "</title></text>\n";
      continue;
    }
    o += "<circle cx=\"" + F(px[i]) + "\" cy=\"" + F(Y(*p.median)) + "\" r=\"4\" fill=\"" +
         (p.is_baseline ? kBase : kLine) + "\"><title>" +
         XmlEscape(p.label + ": " + Fixed(*p.median, dec) + " " + unit + " (min " +
                   Fixed(*p.min, dec) + ", max " + Fixed(*p.max, dec) + ")") +
         "</title></circle>\n";
  }
  // Legend, below the axis title.
  const double ly = kH - 16;
  o += "<g font-size=\"10\">\n<circle cx=\"" + F(kX0 + 4) + "\" cy=\"" + F(ly - 3) +
       "\" r=\"4\" fill=\"" + kLine + "\"/>\n<text x=\"" + F(kX0 + 12) + "\" y=\"" + F(ly) +
       "\">median of " + std::to_string(s.repeat) + " repeats (" + unit +
       "), bars: min-max</text>\n<circle cx=\"" + F(kX0 + 264) + "\" cy=\"" + F(ly - 3) +
       "\" r=\"4\" fill=\"" + kBase + "\"/>\n<text x=\"" + F(kX0 + 272) + "\" y=\"" + F(ly) +
       "\">baseline " + XmlEscape(s.baseline_label) + " (dashed line: its median)</text>\n";
  const bool any_failed =
      std::any_of(s.points.begin(), s.points.end(), [](const auto& p) { return !p.median; });
  if (any_failed) {
    o += "<text x=\"" + F(kX0 + 500) + "\" y=\"" + F(ly) + "\" fill=\"" + kFail +
         "\">x = failed point</text>\n";
  }
  o += "</g>\n";
  if (!s.complete) {
    o += "<text x=\"" + F(kX0 + 8) + "\" y=\"" + F(kY0 + 11) + "\" fill=\"" + kFail +
         "\">interrupted: " + std::to_string(s.points.size()) + " of " +
         std::to_string(s.planned_points) + " points</text>\n";
  }
  return o + "</svg>\n";
}

}  // namespace rxe::sweep
