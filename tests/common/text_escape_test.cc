#include "common/text_escape.h"

#include <gtest/gtest.h>

namespace rxe {
namespace {

TEST(JsonEscapeTest, EscapesQuotesBackslashesAndControlCharacters) {
  std::string out = "x";
  AppendJsonEscaped(out, "a\"b\\c\nd\re\tf\x01g\x1fh");
  EXPECT_EQ(out, "xa\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u001fh");
}

TEST(JsonEscapeTest, KeepsUtf8AndQuotes) {
  EXPECT_EQ(JsonQuoted("µs ok"), "\"µs ok\"");
  EXPECT_EQ(JsonQuoted(""), "\"\"");
  EXPECT_EQ(JsonQuoted(std::string_view("\0", 1)), "\"\\u0000\"");
}

TEST(MarkupEscapeTest, EscapesEntitiesAndDropsForbiddenControls) {
  EXPECT_EQ(MarkupEscape("<a href=\"x\">Tom & Jerry's</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
  EXPECT_EQ(MarkupEscape("a\x01" "b\nc\td\x1b"), "a b\nc\td ");
  EXPECT_EQ(MarkupEscape("plain"), "plain");
}

}  // namespace
}  // namespace rxe
