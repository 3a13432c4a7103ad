#include "framework/ledger/ledger_file.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace aftershock::ledger {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::path(testing::TempDir()) / ("ledger_file_test_" + name)).string();
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Runs ParseLedgerFile on `text` and returns the error message ("" when it parsed).
std::string ParseError(const std::string& text) {
  try {
    ParseLedgerFile(text, "f.tsv");
  } catch (const LedgerFileError& e) {
    return e.what();
  }
  return "";
}

const std::string kHead = "# aftershock-ledger v1\n# acknowledged=3\nkind\tunix_ms\tkey\tvalue\tcode\n";

TEST(LedgerFileTest, RoundTripsThroughAFileIncludingEscapes) {
  LedgerFile file;
  file.acknowledged = 7;
  file.header = {{"target.kind", "pseudonym"}, {"target.addresses", "127.0.0.1:1,127.0.0.1:2"}, {"odd", "a\tb"}};
  file.promises = {{"alice", "p-17", 1733040000123},
                   {"k-1", "v-1", 3, PromiseKind::kWritten, {{"shard", "2"}, {"node", "kv-a"}}},
                   {"k-2", "v-2", 4, PromiseKind::kIssued, {{"odd.value", "a;b=c\\d\te\n"}, {"empty", ""}}},
                   {"tab\there", "new\nline", -5},
                   {"back\\slash\\t", "cr\r", 0},
                   {"", "empty key", 1},
                   {"\xc3\xa4pfel", "", 2}};
  file.indeterminate = {{"bob", 1733040000456, kCodeDeadlineExceeded},
                        {"ca\trol", 7, kCodeUnavailable},
                        {"dave", 8, 503},
                        {"eve", 9, kCodeShed}};
  const std::string path = TempPath("roundtrip.tsv");
  WriteLedgerFile(path, file);
  EXPECT_EQ(ReadLedgerFile(path), file);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  std::filesystem::remove(path);
}

TEST(LedgerFileTest, FormatIsTheDocumentedOne) {
  LedgerFile file;
  file.acknowledged = 1;
  file.header = {{"target.kind", "pseudonym"}};
  file.promises = {{"a\tb", "v", 10}, {"k", "w", 12, PromiseKind::kWritten, {{"shard", "2;3"}, {"node", "a"}}}};
  file.indeterminate = {{"c", 11, kCodeDeadlineExceeded}};
  EXPECT_EQ(FormatLedgerFile(file),
            "# aftershock-ledger v3\n# target.kind=pseudonym\nkind\tunix_ms\tkey\tvalue\tcode\tattributes\n"
            "promise\t10\ta\\tb\tv\t\t\n"
            "read-back\t12\tk\tw\t\tnode=a;shard=2\\;3\n"
            "indeterminate\t11\tc\t\tDEADLINE_EXCEEDED\t\n"
            "# end acknowledged=2 indeterminate=1\n");
}

TEST(LedgerFileTest, ThePromiseKindIsTheRowKind) {
  LedgerFile file;
  file.acknowledged = 2;
  file.promises = {{"alice", "p-17", 10}, {"k-1", "v-1", 11, PromiseKind::kWritten}};
  const std::string text = FormatLedgerFile(file);
  EXPECT_NE(text.find("\npromise\t10\talice\tp-17\t\t\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nread-back\t11\tk-1\tv-1\t\t\n"), std::string::npos) << text;
  EXPECT_EQ(ParseLedgerFile(text, "f.tsv"), file);
  // Older files have only `promise` rows: issued promises, as before.
  const LedgerFile old = ParseLedgerFile(kHead + "promise\t1\ta\tb\t\n", "f.tsv");
  ASSERT_EQ(old.promises.size(), 1u);
  EXPECT_EQ(old.promises[0].kind, PromiseKind::kIssued);
  EXPECT_NE(ParseError(kHead + "read-back\t1\ta\tb\t\n").find("f.tsv:4: read-back rows need version 2"),
            std::string::npos);
}

TEST(LedgerFileTest, Version2FilesWithoutAttributesAreStillRead) {
  const LedgerFile file = ParseLedgerFile(
      "# aftershock-ledger v2\n# target.kind=kv\nkind\tunix_ms\tkey\tvalue\tcode\nread-back\t1\tk\tv\t\n"
      "indeterminate\t2\tl\t\tUNAVAILABLE\n# end acknowledged=1 indeterminate=1\n",
      "f.tsv");
  EXPECT_TRUE(file.complete);
  EXPECT_EQ(file.promises, (std::vector<Promise>{{"k", "v", 1, PromiseKind::kWritten}}));
  EXPECT_TRUE(file.promises[0].attributes.empty());
  EXPECT_EQ(file.indeterminate.size(), 1u);
}

TEST(LedgerFileTest, AttributesKeepTheirValuesAndAreSortedByName) {
  const LedgerFile file = ParseLedgerFile(
      "# aftershock-ledger v3\nkind\tunix_ms\tkey\tvalue\tcode\tattributes\n"
      "read-back\t1\tk\tv\t\tshard=2;node=a\\;b;empty=\n",
      "f.tsv");
  ASSERT_EQ(file.promises.size(), 1u);
  const PromiseAttributes& a = file.promises[0].attributes;
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a.begin()[0], (PromiseAttributes::Item{"empty", ""}));
  EXPECT_EQ(a.Get("node"), "a;b");
  EXPECT_EQ(a.Get("shard"), "2");
  EXPECT_EQ(a.Get("zone"), std::nullopt);
}

TEST(LedgerFileTest, MalformedAttributesNameLineAndField) {
  const std::string v3 = "# aftershock-ledger v3\nkind\tunix_ms\tkey\tvalue\tcode\tattributes\n";
  EXPECT_EQ(ParseError(v3 + "read-back\t1\tk\tv\t\tshard\n"), "f.tsv:3: attributes: 'shard' is not name=value");
  EXPECT_EQ(ParseError(v3 + "read-back\t1\tk\tv\t\tshard=1;\n"), "f.tsv:3: attributes: '' is not name=value");
  EXPECT_EQ(ParseError(v3 + "read-back\t1\tk\tv\t\tShard=1\n"), "f.tsv:3: attributes: name 'Shard' is not [a-z0-9._-]+");
  EXPECT_EQ(ParseError(v3 + "read-back\t1\tk\tv\t\t=1\n"), "f.tsv:3: attributes: name '' is not [a-z0-9._-]+");
  EXPECT_EQ(ParseError(v3 + "read-back\t1\tk\tv\t\ts=1;s=2\n"), "f.tsv:3: attributes: 's' is given twice");
  EXPECT_EQ(ParseError(v3 + "read-back\t1\tk\tv\t\ts=\\q\n"), "f.tsv:3: attributes: bad escape in the value of 's'");
  EXPECT_EQ(ParseError(v3 + "indeterminate\t1\tk\t\tUNAVAILABLE\ts=1\n"), "f.tsv:3: an indeterminate row has no attributes");
  EXPECT_EQ(ParseError(v3 + "read-back\t1\tk\tv\t\n"), "f.tsv:3: expected 6 tab-separated fields, found 5");
  EXPECT_EQ(ParseError("# aftershock-ledger v3\nkind\tunix_ms\tkey\tvalue\tcode\n"),
            "f.tsv:2: expected the column line 'kind<TAB>unix_ms<TAB>key<TAB>value<TAB>code<TAB>attributes'");
  // A version 2 file has no attributes column.
  EXPECT_EQ(ParseError("# aftershock-ledger v2\nkind\tunix_ms\tkey\tvalue\tcode\nread-back\t1\tk\tv\t\ts=1\n"),
            "f.tsv:3: expected 5 tab-separated fields, found 6");
}

TEST(LedgerFileTest, AFileWithoutEndLineIsReadAsIncomplete) {
  const LedgerFile file = ParseLedgerFile(
      "# aftershock-ledger v2\n# target.kind=x\nkind\tunix_ms\tkey\tvalue\tcode\npromise\t1\tk\tv\t\n"
      "promise\t2\tl\tw\t\n",
      "f.tsv");
  EXPECT_FALSE(file.complete);
  EXPECT_EQ(file.acknowledged, 2u);
  EXPECT_EQ(file.HeaderValue("target.kind"), "x");
  EXPECT_EQ(file.HeaderValue("missing"), "");
  EXPECT_EQ(file.promises.size(), 2u);
}

TEST(LedgerFileTest, Version1FilesAreStillRead) {
  const LedgerFile file = ParseLedgerFile(kHead + "\n# a note\npromise\t1\tk\tv\t\n", "f.tsv");
  EXPECT_EQ(file.acknowledged, 3u);
  EXPECT_TRUE(file.complete);
  EXPECT_EQ(file.promises, (std::vector<Promise>{{"k", "v", 1}}));
}

TEST(LedgerFileTest, MalformedInputNamesFileAndLine) {
  EXPECT_EQ(ParseError(""), "f.tsv:1: empty file, expected '# aftershock-ledger v3'");
  EXPECT_EQ(ParseError("# aftershock-ledger v4\n"), "f.tsv:1: expected '# aftershock-ledger v3', found '# aftershock-ledger v4'");
  const std::string v2 = "# aftershock-ledger v2\nkind\tunix_ms\tkey\tvalue\tcode\npromise\t1\tk\tv\t\n";
  EXPECT_EQ(ParseError(v2 + "# end acknowledged=2 indeterminate=0\n"),
            "f.tsv:4: the end line says acknowledged=2 but the file has 1 promise rows");
  EXPECT_EQ(ParseError(v2 + "# end acknowledged=1 indeterminate=0\npromise\t2\tl\tw\t\n"), "f.tsv:5: text after the end line");
  EXPECT_EQ(ParseError("# aftershock-ledger v2\n#nospace\n"), "f.tsv:2: expected a header line '# name=value'");
  EXPECT_EQ(ParseError("# aftershock-ledger v1\n# acknowledged=x\n"), "f.tsv:2: acknowledged= is not a non-negative integer");
  EXPECT_EQ(ParseError("# aftershock-ledger v1\npromise\t1\tk\tv\t\n"),
            "f.tsv:2: expected the column line 'kind<TAB>unix_ms<TAB>key<TAB>value<TAB>code'");
  EXPECT_EQ(ParseError("# aftershock-ledger v1\n"), "f.tsv:1: missing the column line");
  EXPECT_EQ(ParseError(kHead + "promise\t1\tk\tv\n"), "f.tsv:4: expected 5 tab-separated fields, found 4");
  EXPECT_EQ(ParseError(kHead + "promise\t1\tk\tv\t\t\n"), "f.tsv:4: expected 5 tab-separated fields, found 6");
  EXPECT_EQ(ParseError(kHead + "promise\t1x\tk\tv\t\n"), "f.tsv:4: unix_ms '1x' is not an integer");
  EXPECT_EQ(ParseError(kHead + "promise\t1\tk\\q\tv\t\n"), "f.tsv:4: bad escape in key");
  EXPECT_EQ(ParseError(kHead + "promise\t1\tk\tv\\\t\n"), "f.tsv:4: bad escape in value");
  EXPECT_EQ(ParseError(kHead + "promise\t1\tk\tv\tOK\n"), "f.tsv:4: a promise row has no code");
  EXPECT_EQ(ParseError(kHead + "indeterminate\t1\tk\t\tNOPE\n"), "f.tsv:4: unknown code 'NOPE'");
  EXPECT_EQ(ParseError(kHead + "indeterminate\t1\tk\tv\tOK\n"), "f.tsv:4: an indeterminate row has no value");
  EXPECT_EQ(ParseError(kHead + "\npromise\t1\tk\tv\t\nlost\t1\tk\tv\t\n"),
            "f.tsv:6: unknown kind 'lost' (expected promise, read-back or indeterminate)");
}

TEST(LedgerFileTest, ReadErrorsNameThePath) {
  const std::string missing = TempPath("does_not_exist.tsv");
  try {
    ReadLedgerFile(missing);
    FAIL() << "expected LedgerFileError";
  } catch (const LedgerFileError& e) {
    EXPECT_EQ(std::string(e.what()), missing + ":0: cannot open for reading");
  }
  const std::string bad = TempPath("bad.tsv");
  WriteText(bad, kHead + "promise\tnope\tk\tv\t\n");
  try {
    ReadLedgerFile(bad);
    FAIL() << "expected LedgerFileError";
  } catch (const LedgerFileError& e) {
    EXPECT_EQ(std::string(e.what()), bad + ":4: unix_ms 'nope' is not an integer");
  }
  std::filesystem::remove(bad);
}

TEST(LedgerFileTest, WriteToMissingDirectoryThrows) {
  EXPECT_THROW(WriteLedgerFile(TempPath("no/such/dir/ledger.tsv"), LedgerFile{}), LedgerFileError);
}

}  // namespace
}  // namespace aftershock::ledger
