// process_* metrics: the pure parsers, a fixture /proc (tests/fixtures/process)
// against a golden exposition, and this test process's own /proc/self.
// RXE_UPDATE_GOLDEN=1 rewrites tests/fixtures/golden/process.prom instead of comparing.
#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>

#include "collectors/process_metrics.h"
#include "collectors/process_parse.h"

namespace rxe::collectors {
namespace {

const std::string kFixture = std::string(RXE_FIXTURES_DIR) + "/process/proc";
const std::string kGolden = std::string(RXE_FIXTURES_DIR) + "/golden/process.prom";

TEST(ProcessParse, StatFieldsAfterACommandWithSpacesAndParentheses) {
  auto s = ParseProcSelfStat(
      "7 (a) b (c)) R 1 7 7 0 -1 0 0 0 0 0 11 22 0 0 20 0 1 0 333 4444 55 18446744073709551615\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->utime_ticks, 11u);
  EXPECT_EQ(s->stime_ticks, 22u);
  EXPECT_EQ(s->starttime_ticks, 333u);
  EXPECT_EQ(s->vsize_bytes, 4444u);
  EXPECT_EQ(s->rss_pages, 55);
}

TEST(ProcessParse, BadStat) {
  EXPECT_FALSE(ParseProcSelfStat(""));
  EXPECT_FALSE(ParseProcSelfStat("7 (a) R 1 7 7 0"));  // truncated
  EXPECT_FALSE(ParseProcSelfStat(
      "7 (a) R 1 7 7 0 -1 0 0 0 0 0 x 22 0 0 20 0 1 0 333 4444 55 1\n"));  // utime not a number
}

TEST(ProcessParse, Limits) {
  const std::string text =
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max open files            1024                 524288               files     \n"
      "Max address space         unlimited            unlimited            bytes     \n";
  EXPECT_EQ(ParseSoftLimit(text, "Max open files"), 1024u);
  EXPECT_EQ(ParseSoftLimit(text, "Max address space"), std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(ParseSoftLimit(text, "Max open"));  // a whole name only
  EXPECT_FALSE(ParseSoftLimit(text, "Max locked memory"));
  EXPECT_FALSE(ParseSoftLimit("Max open files  lots  1  files\n", "Max open files"));
}

TEST(ProcessParse, BootTime) {
  EXPECT_EQ(ParseBootTime("cpu  1 2 3\nbtime 1764849600\nprocesses 9\n"), 1764849600u);
  EXPECT_FALSE(ParseBootTime("cpu  1 2 3\n"));
}

TEST(ProcessMetrics, FixtureMatchesTheGolden) {
  const ProcessSample s = ReadProcessSample(kFixture, 100, 4096);
  EXPECT_DOUBLE_EQ(*s.cpu_seconds, 18.01);  // (1234 + 567) / 100
  EXPECT_DOUBLE_EQ(*s.resident_memory_bytes, 5120.0 * 4096);
  EXPECT_DOUBLE_EQ(*s.start_time_seconds, 1764849600.0 + 2500);  // btime + 250000 / 100
  EXPECT_DOUBLE_EQ(*s.open_fds, 7);
  EXPECT_DOUBLE_EQ(*s.max_fds, 1024);
  std::vector<prometheus::MetricFamily> out;
  AppendProcessMetrics(s, out);
  const std::string text = prometheus::TextSerializer().Serialize(out);
  if (const char* u = std::getenv("RXE_UPDATE_GOLDEN"); u != nullptr && std::string(u) == "1") {
    std::ofstream(kGolden, std::ios::binary) << text;
    std::cout << "RXE_UPDATE_GOLDEN=1: rewrote " << kGolden << "; review the diff\n";
    return;
  }
  std::ifstream in(kGolden, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing " << kGolden;
  const std::string golden((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, golden) << "output differs from " << kGolden;
}

TEST(ProcessMetrics, MissingFilesExportNothing) {
  const ProcessSample s = ReadProcessSample("/nonexistent-procfs");
  std::vector<prometheus::MetricFamily> out;
  AppendProcessMetrics(s, out);
  EXPECT_TRUE(out.empty());
}

TEST(ProcessMetrics, ThisProcess) {
  const ProcessSample s = ReadProcessSample("/proc");
  ASSERT_TRUE(s.cpu_seconds && s.resident_memory_bytes && s.virtual_memory_bytes &&
              s.virtual_memory_max_bytes && s.open_fds && s.max_fds && s.start_time_seconds);
  EXPECT_GT(*s.resident_memory_bytes, 0);
  EXPECT_GE(*s.virtual_memory_bytes, *s.resident_memory_bytes);
  EXPECT_GE(*s.open_fds, 3);  // stdin, stdout, stderr (+ the fd directory itself)
  EXPECT_GE(*s.max_fds, *s.open_fds);
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LE(*s.start_time_seconds, now + 1);  // started before now (btime has 1 s resolution)
  EXPECT_GT(*s.start_time_seconds, now - 24 * 3600);
}

}  // namespace
}  // namespace rxe::collectors
