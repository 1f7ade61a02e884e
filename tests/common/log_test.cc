#include "common/log.h"

#include <gtest/gtest.h>

namespace rxe::log {
namespace {

TEST(LogTest, LogfmtQuotesOnlyWhenNeeded) {
  EXPECT_EQ(FormatLine(Format::kLogfmt, "T", Level::kInfo, "probe failed",
                       {{"peer", "b"}, {"detail", "a=b \"x\""}, {"empty", ""}}),
            "ts=T level=info msg=\"probe failed\" peer=b detail=\"a=b \\\"x\\\"\" empty=\"\"");
}

TEST(LogTest, JsonEscapesControlCharacters) {
  EXPECT_EQ(FormatLine(Format::kJson, "T", Level::kWarn, "line\nbreak", {{"k", "tab\t"}}),
            "{\"ts\":\"T\",\"level\":\"warn\",\"msg\":\"line\\nbreak\",\"k\":\"tab\\t\"}");
}

TEST(LogTest, ParsesLevelsAndFormats) {
  EXPECT_EQ(ParseLevel("debug"), Level::kDebug);
  EXPECT_EQ(ParseLevel("error"), Level::kError);
  EXPECT_FALSE(ParseLevel("verbose").has_value());
  EXPECT_EQ(ParseFormat("json"), Format::kJson);
  EXPECT_FALSE(ParseFormat("text").has_value());
}

TEST(LogTest, LevelFilter) {
  Init(Level::kWarn, Format::kLogfmt);
  EXPECT_FALSE(Enabled(Level::kInfo));
  EXPECT_TRUE(Enabled(Level::kError));
  Init(Level::kInfo, Format::kLogfmt);
}

}  // namespace
}  // namespace rxe::log
