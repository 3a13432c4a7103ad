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

}  // namespace
}  // namespace aftershock::ledger::internal
