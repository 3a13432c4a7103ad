#include "framework/config/internal/yaml_documents.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace aftershock::config::internal {
namespace {

using ::testing::ExitedWithCode;

// Parses `text` in a death-test child with a 5 s alarm, so a parser that loops kills the child
// (SIGALRM) instead of hanging the test; prints the exception's text and exits 0 when one is thrown.
void ParseInChild(const std::string& text) {
  ::alarm(5);
  try {
    LoadAllDocuments(text);
  } catch (const YAML::ParserException& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(0);
  }
  std::fprintf(stderr, "no exception\n");
  std::exit(1);
}

TEST(LoadAllDocumentsTest, AFlowIndicatorWhereABlockNodeStartsIsAnErrorNotAHang) {
  // Each of these makes Debian's YAML::LoadAll (yaml-cpp 0.7) loop forever with growing memory.
  EXPECT_EXIT(ParseInChild(","), ExitedWithCode(0), "line 1, column 1: unexpected ','");
  EXPECT_EXIT(ParseInChild("&a,"), ExitedWithCode(0), "line 1, column 3: unexpected ','");
  EXPECT_EXIT(ParseInChild("&a ,"), ExitedWithCode(0), "line 1, column 4: unexpected ','");
  EXPECT_EXIT(ParseInChild("!t,"), ExitedWithCode(0), "line 1, column 3: unexpected ','");
  EXPECT_EXIT(ParseInChild("&a\n,"), ExitedWithCode(0), "line 2, column 1: unexpected ','");
  EXPECT_EXIT(ParseInChild("&\x84\x84\x84\x84,\x92\x84"), ExitedWithCode(0), "unexpected ','");
}

TEST(LoadAllDocumentsTest, ReturnsEveryDocumentOfAWellFormedText) {
  const std::vector<YAML::Node> docs = LoadAllDocuments("a: 1\n---\nb: [2, 3]\n---\nc: 'x, y'\n");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0]["a"].as<int>(), 1);
  EXPECT_EQ(docs[1]["b"][1].as<int>(), 3);
  EXPECT_EQ(docs[2]["c"].as<std::string>(), "x, y");
  EXPECT_TRUE(LoadAllDocuments("").empty());
  // A comma inside a plain block scalar is text, not a flow indicator.
  EXPECT_EQ(LoadAllDocuments("a: b, c\n")[0]["a"].as<std::string>(), "b, c");
}

TEST(LoadAllDocumentsTest, OrdinarySyntaxErrorsKeepYamlCppsMessageAndMark) {
  try {
    LoadAllDocuments("a: 1\n,");
    FAIL() << "no exception";
  } catch (const YAML::ParserException& e) {
    EXPECT_EQ(e.mark.line, 1);
    EXPECT_EQ(e.msg, "end of map not found");
  }
}

}  // namespace
}  // namespace aftershock::config::internal
