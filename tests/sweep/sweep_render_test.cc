// Golden-file tests of the four sweep renderers (byte for byte). Regenerate
// with RXE_UPDATE_GOLDEN=1 after an intended format change, then review the diff.
#include "sweep/sweep_render.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace rxe::sweep {
namespace {

const std::string kDir = std::string(RXE_FIXTURES_DIR) + "/sweep/";

void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = kDir + name;
  const char* update = std::getenv("RXE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path << " (run with RXE_UPDATE_GOLDEN=1)";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), actual) << "golden " << path << " differs (RXE_UPDATE_GOLDEN=1 rewrites it)";
}

/// The article's MTU table (Gb/s: 0.28, 0.40, 0.92, 1.16) with three repeats each.
SweepResult MtuSweep() {
  Base base;
  base.params = ArticleDefaults();
  base.baseline = "1024";
  SweepResult r;
  r.plan = ExpandVary("mtu=512,1024,2048,4096", base).value();
  r.plan.name = "02-mtu";
  r.target = "10.77.0.11:19792";
  const std::vector<std::vector<double>> samples = {
      {0.27, 0.28, 0.29}, {0.41, 0.40, 0.38}, {0.92, 0.95, 0.90}, {1.16, 1.10, 1.21}};
  for (size_t i = 0; i < samples.size(); ++i) r.points.push_back({i, samples[i], {}});
  r.complete = true;
  return r;
}

/// The size table with a failed point, a partly failed one and an interruption.
SweepResult SizeSweep() {
  Base base;
  base.params = ArticleDefaults();
  SweepResult r;
  r.plan = ExpandVary("size=64,512,4KiB,16KiB,64KiB,256KiB,1MiB", base).value();
  r.plan.name = "01-size";
  r.target = "10.77.0.11:19792";
  r.points.push_back({0, {0.021, 0.020, 0.022}, {}});
  r.points.push_back({1, {0.085, 0.083}, {"timeout: probe did not finish"}});
  r.points.push_back({2,
                      {},
                      {"wc_error: send failed (IBV_WC_RETRY_EXC_ERR)",
                       "wc_error: send failed (IBV_WC_RETRY_EXC_ERR)",
                       "wc_error: send failed (IBV_WC_RETRY_EXC_ERR)"}});
  r.points.push_back({3, {2.19, 2.05, 2.30}, {}});
  r.points.push_back({4, {2.50, 2.41, 2.55}, {}});
  r.complete = false;  // Ctrl-C during 256KiB
  return r;
}

SweepResult LatencyCpuSweep() {
  Base base;
  base.params = ArticleDefaults();
  base.params.type = config::ProbeType::kSendLat;
  base.params.size = 2;
  base.params.tx_depth = 1;
  base.repeat = 5;
  SweepResult r;
  r.plan = ExpandVary("cpu=none,0,1-2", base).value();
  r.target = "rxe-b:19792";
  r.points.push_back({0, {18.42, 19.87, 19.01, 25.3, 18.9}, {}});
  r.points.push_back({1, {24.1, 26.0, 23.8, 25.2, 24.4}, {}});
  r.points.push_back({2, {20.0, 21.5, 19.7, 20.2, 22.9}, {}});
  r.complete = true;
  return r;
}

TEST(SweepRender, MtuGolden) {
  const Summary s = Summarize(MtuSweep());
  ExpectGolden("mtu.txt", RenderTable(s));
  ExpectGolden("mtu.csv", RenderCsv(s));
  ExpectGolden("mtu.json", RenderJson(s));
  ExpectGolden("mtu.svg", RenderSvg(s));
}

TEST(SweepRender, SizeInterruptedGolden) {
  const Summary s = Summarize(SizeSweep());
  ExpectGolden("size.txt", RenderTable(s));
  ExpectGolden("size.csv", RenderCsv(s));
  ExpectGolden("size.json", RenderJson(s));
  ExpectGolden("size.svg", RenderSvg(s));
}

TEST(SweepRender, LatencyCpuGolden) {
  const Summary s = Summarize(LatencyCpuSweep());
  ExpectGolden("cpu_latency.txt", RenderTable(s));
  ExpectGolden("cpu_latency.csv", RenderCsv(s));
  ExpectGolden("cpu_latency.json", RenderJson(s));
  ExpectGolden("cpu_latency.svg", RenderSvg(s));
  ExpectGolden("run.json", RenderJsonRun({Summarize(MtuSweep()), s}, false));
}

TEST(SweepRender, TableShowsTheArticleColumns) {
  const std::string t = RenderTable(Summarize(MtuSweep()));
  EXPECT_NE(t.find("median Gb/s"), std::string::npos);
  EXPECT_NE(t.find("vs 1024"), std::string::npos);
  EXPECT_NE(t.find("-30%"), std::string::npos);   // 0.28 vs 0.40, as in the article
  EXPECT_NE(t.find("+130%"), std::string::npos);  // 0.92 vs 0.40
  EXPECT_NE(t.find("+190%"), std::string::npos);  // 1.16 vs 0.40
  EXPECT_NE(t.find("baseline"), std::string::npos);
}

/// Well-formedness: python3's XML parser when available, else a tag balance check.
bool TagsBalanced(const std::string& xml) {
  std::vector<std::string> stack;
  for (size_t i = xml.find('<'); i != std::string::npos; i = xml.find('<', i + 1)) {
    const size_t end = xml.find('>', i);
    if (end == std::string::npos) return false;
    std::string tag = xml.substr(i + 1, end - i - 1);
    if (tag.empty() || tag[0] == '?' || tag[0] == '!') continue;
    if (tag.back() == '/') continue;
    const std::string name =
        tag.substr(tag[0] == '/' ? 1 : 0, tag.find_first_of(" \t\n") - (tag[0] == '/' ? 1 : 0));
    if (tag[0] == '/') {
      if (stack.empty() || stack.back() != name) return false;
      stack.pop_back();
    } else {
      stack.push_back(name);
    }
  }
  return stack.empty();
}

TEST(SweepRender, SvgIsWellFormedXml) {
  for (const auto& r : {MtuSweep(), SizeSweep(), LatencyCpuSweep()}) {
    const std::string svg = RenderSvg(Summarize(r));
    EXPECT_TRUE(TagsBalanced(svg));
    const std::string path = ::testing::TempDir() + "/sweep_" + r.plan.name + ".svg";
    std::ofstream(path, std::ios::binary) << svg;
    if (std::system("python3 -c 'import xml.dom.minidom' >/dev/null 2>&1") != 0) continue;
    const std::string cmd =
        "python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' " + path;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << path << " is not well-formed XML";
  }
}

TEST(SweepRender, SvgHasAxesUnitsAndLogScale) {
  const std::string svg = RenderSvg(Summarize(SizeSweep()));
  EXPECT_NE(svg.find("Message size (bytes, log2 scale)"), std::string::npos);
  EXPECT_NE(svg.find("Bandwidth (Gb/s)"), std::string::npos);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find("interrupted: 5 of 7 points"), std::string::npos);
  const std::string lat = RenderSvg(Summarize(LatencyCpuSweep()));
  EXPECT_NE(lat.find("latency, median (µs)"), std::string::npos);
}

}  // namespace
}  // namespace rxe::sweep
