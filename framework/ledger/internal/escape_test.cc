#include "framework/ledger/internal/escape.h"

#include "gtest/gtest.h"

namespace aftershock::ledger::internal {
namespace {

TEST(EscapeTest, EscapesTheFourSpecialCharacters) {
  EXPECT_EQ(EscapeField("a\tb\nc\rd\\e"), "a\\tb\\nc\\rd\\\\e");
  EXPECT_EQ(EscapeField("plain"), "plain");
}

TEST(EscapeTest, RoundTrips) {
  constexpr char kRaw[] = "\\t literal, \t tab, \n\r, \xc3\xa4, \0 nul";
  const std::string raw(kRaw, sizeof(kRaw) - 1);
  ASSERT_EQ(raw.size(), 32u);
  EXPECT_EQ(UnescapeField(EscapeField(raw)), raw);
}

TEST(EscapeTest, RejectsUnknownEscapeAndTrailingBackslash) {
  EXPECT_EQ(UnescapeField("a\\x"), std::nullopt);
  EXPECT_EQ(UnescapeField("a\\"), std::nullopt);
}

TEST(EscapeTest, AttributeValuesAlsoEscapeSemicolons) {
  EXPECT_EQ(EscapeAttributeValue("a;b\tc"), "a\\;b\\tc");
  EXPECT_EQ(UnescapeAttributeValue("a\\;b\\tc"), "a;b\tc");
  EXPECT_EQ(EscapeField("a;b"), "a;b");               // plain fields keep ';'
  EXPECT_EQ(UnescapeField("a\\;b"), std::nullopt);  // and do not know its escape
}

TEST(EscapeTest, SplitsAttributesOnlyAtUnescapedSemicolons) {
  const std::vector<std::string_view> parts = SplitAttributes("a=1\\;2;b=\\\\;c=");
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0], "a=1\\;2");
  EXPECT_EQ(parts[1], "b=\\\\");  // an escaped backslash does not escape the ';' after it
  EXPECT_EQ(parts[2], "c=");
  EXPECT_EQ(SplitAttributes("").size(), 1u);
}

}  // namespace
}  // namespace aftershock::ledger::internal
