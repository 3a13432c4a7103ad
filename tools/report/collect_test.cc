// aftershock-collect: the exact CSV rows out of a real ctest JUnit file (junit-example.xml, from a run
// of the example set; the expected files were cut from it by a separate script), out of escaped and
// CDATA system-out, and out of an interleaved `ctest -j2 -V` log; truncated blocks, a rows= mismatch
// and an empty selection are errors with a non-zero exit.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "framework/process/scratch_dir.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/report/collect.h"

namespace aftershock::report_tools {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

const std::filesystem::path kTestdata = AFTERSHOCK_REPORT_TESTDATA;

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Result {
  int code = -1;
  std::string out, err;
};

Result Collect(std::vector<std::string> args) {
  std::ostringstream out, err;
  Result r;
  r.code = RunCollect(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::vector<std::string> FilesUnder(const std::filesystem::path& root) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) files.push_back(e.path().lexically_relative(root).generic_string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(Collect, RecoversEveryBlockOfAJunitFileExactly) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-collect-test");
  const Result r = Collect({"--out=" + tmp.path(), (kTestdata / "junit-example.xml").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, IsEmpty());
  const auto got = FilesUnder(tmp.path());
  EXPECT_EQ(got, FilesUnder(kTestdata / "expected"));
  ASSERT_EQ(got.size(), 12u);
  for (const std::string& f : got) EXPECT_EQ(Slurp(tmp.path() + "/" + f), Slurp(kTestdata / "expected" / f)) << f;
  EXPECT_THAT(r.out, HasSubstr("example/stall-burst/chaos-timeline.csv (4 rows)"));
}

TEST(Collect, DecodesEntitiesAndCdataIncludingQuotedFieldsOverTwoLines) {
  const Extraction x = ExtractBlocks(Slurp(kTestdata / "gtest-cdata.xml"), "gtest-cdata.xml");
  EXPECT_THAT(x.errors, IsEmpty());
  ASSERT_EQ(x.blocks.size(), 2u);
  EXPECT_EQ(x.blocks[0].scenario, "escaped");
  EXPECT_TRUE(x.blocks[0].complete);
  EXPECT_EQ(x.blocks[0].csv,
            "unix_ms,second,event,fault,detail\n"
            "1796198075812,4.000,apply,stall,\"a, \"\"b\"\" & <c>\"\n"
            "1796198075814,4.002,confirmed,stall,caf\xC3\xA9 & co\n");
  EXPECT_EQ(x.blocks[1].scenario, "cdata");
  EXPECT_TRUE(x.blocks[1].complete);
  EXPECT_EQ(x.blocks[1].rows, 3u);
  EXPECT_EQ(x.blocks[1].csv,
            "unix_ms,second,event,fault,detail\n"
            "1796198075812,4.000,apply,stall,\"a, \"\"b\"\" & <c>\"\n"
            "1796198075813,4.001,confirmed,stall,\"two\nlines\"\n"
            "1796198075814,4.002,revert,stall,&amp; stays as it is in CDATA\n");
}

TEST(Collect, SeparatesInterleavedProcessesByPrefixAndColumns) {
  const Extraction x = ExtractBlocks(Slurp(kTestdata / "interleaved.log"), "interleaved.log");
  EXPECT_THAT(x.errors, IsEmpty());
  ASSERT_EQ(x.blocks.size(), 3u);
  // A stderr line and a progress line of test 3, and a five-column line that is no row of test 4.
  EXPECT_EQ(x.foreign_lines, 3u);
  const std::filesystem::path expected = kTestdata / "expected/example";
  EXPECT_EQ(x.blocks[0].scenario, "baseline");
  EXPECT_EQ(x.blocks[0].csv, Slurp(expected / "baseline/load-timeline.csv"));
  EXPECT_EQ(x.blocks[1].scenario, "stall-burst");
  EXPECT_EQ(x.blocks[1].csv, Slurp(expected / "stall-burst/load-timeline.csv"));
  EXPECT_EQ(x.blocks[2].file, "chaos-timeline.csv");
  EXPECT_EQ(x.blocks[2].csv, Slurp(expected / "stall-burst/chaos-timeline.csv"));
  for (const auto& b : x.blocks) EXPECT_TRUE(b.complete) << b.scenario;
}

TEST(Collect, AForeignLineIsNotKeptWhenTheBlockHasNoPrefix) {
  const std::string log =
      "##aftershock BEGIN chaos-timeline.csv set=pr scenario=p\n"
      "unix_ms,second,event,fault,detail\n"
      "1000,0.000,apply,stall,x\n"
      "WARNING: a, line, from, another process\n"  // five columns, not a unix_ms
      "2000,1.000,revert,stall,x\n"
      "999,0.500,confirmed,stall,earlier than the row before: not this block's\n"
      "##aftershock END chaos-timeline.csv rows=2\n";
  const Extraction x = ExtractBlocks(log, "log");
  EXPECT_THAT(x.errors, IsEmpty());
  ASSERT_EQ(x.blocks.size(), 1u);
  EXPECT_EQ(x.blocks[0].csv, "unix_ms,second,event,fault,detail\n1000,0.000,apply,stall,x\n2000,1.000,revert,stall,x\n");
  EXPECT_EQ(x.foreign_lines, 2u);
}

TEST(Collect, ATruncatedBlockIsAnErrorAndOnlyAPartialFile) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-collect-test");
  const std::string log_path = tmp.path() + "/cut.log";
  std::ofstream(log_path) << "##aftershock BEGIN chaos-timeline.csv set=pr scenario=cut\n"
                             "unix_ms,second,event,fault,detail\n"
                             "1000,0.000,apply,stall,x\n"
                             "##aftershock BEGIN chaos-timeline.csv set=pr scenario=short\n"
                             "unix_ms,second,event,fault,detail\n"
                             "1000,0.000,apply,stall,x\n"
                             "##aftershock END chaos-timeline.csv rows=2\n"
                             "##aftershock BEGIN chaos-timeline.csv set=pr scenario=whole\n"
                             "unix_ms,second,event,fault,detail\n"
                             "##aftershock END chaos-timeline.csv rows=0\n"
                             "##aftershock BEGIN load-timeline.csv set=pr scenario=eof\n"
                             "unix_ms,second\n";
  const std::string out = tmp.path() + "/out";
  Result r = Collect({"--out=" + out, log_path});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("cut.log:1: pr/cut/chaos-timeline.csv: truncated: a new BEGIN at line 4 before its END; "
                               "1 rows kept as chaos-timeline.csv.partial"));
  EXPECT_THAT(r.err, HasSubstr("cut.log:4: pr/short/chaos-timeline.csv: truncated: END at line 7 says rows=2 but 1 rows "
                               "were found"));
  EXPECT_THAT(r.err, HasSubstr("cut.log:11: pr/eof/load-timeline.csv: truncated: no END marker before the end of the input"));
  EXPECT_EQ(FilesUnder(out), (std::vector<std::string>{"pr/cut/chaos-timeline.csv.partial", "pr/eof/load-timeline.csv.partial",
                                                       "pr/short/chaos-timeline.csv.partial", "pr/whole/chaos-timeline.csv"}));
  EXPECT_EQ(Slurp(out + "/pr/cut/chaos-timeline.csv.partial"), "unix_ms,second,event,fault,detail\n1000,0.000,apply,stall,x\n");

  // Asked to, it exits 0, still saying what was cut.
  r = Collect({"--out=" + out, "--allow-truncated", log_path});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.err, HasSubstr("aftershock-collect: warning: "));
  EXPECT_THAT(r.err, HasSubstr("cut.log:1: pr/cut/chaos-timeline.csv: truncated"));
  EXPECT_THAT(r.err, Not(HasSubstr("error")));
  // A selection of only the complete block is green; the others' errors are not its business.
  r = Collect({"--out=" + out, "--scenario=whole", log_path});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, IsEmpty());
}

TEST(Collect, ASelectionWithoutABlockFails) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-collect-test");
  Result r = Collect({"--out=" + tmp.path(), "--set=weekly", (kTestdata / "junit-example.xml").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("no complete block of set=weekly in 1 input(s)"));
  EXPECT_THAT(FilesUnder(tmp.path()), IsEmpty());
  r = Collect({"--out=" + tmp.path(), "--set=example", "--scenario=baseline", (kTestdata / "junit-example.xml").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(FilesUnder(tmp.path()),
            (std::vector<std::string>{"example/baseline/chaos-timeline.csv", "example/baseline/load-timeline.csv"}));
}

TEST(Collect, TheSameRunTwiceIsWrittenOnceARepeatWithOtherRowsBeside) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-collect-test");
  const std::string log_path = tmp.path() + "/repeat.log";
  const std::string block1 = "##aftershock BEGIN chaos-timeline.csv set=pr scenario=p\nunix_ms,second,event,fault,detail\n"
                             "##aftershock END chaos-timeline.csv rows=0\n";
  const std::string block2 = "##aftershock BEGIN chaos-timeline.csv set=pr scenario=p\nunix_ms,second,event,fault,detail\n"
                             "5,0.000,action,kill,x\n##aftershock END chaos-timeline.csv rows=1\n";
  std::ofstream(log_path) << block1 << block1 << block2;
  const std::string out = tmp.path() + "/out";
  const Result r = Collect({"--out=" + out, log_path, log_path});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(FilesUnder(out), (std::vector<std::string>{"pr/p/chaos-timeline.csv", "pr/p/chaos-timeline.csv.2"}));
  EXPECT_EQ(Slurp(out + "/pr/p/chaos-timeline.csv.2"), "unix_ms,second,event,fault,detail\n5,0.000,action,kill,x\n");
}

TEST(Collect, RejectsNamesThatAreNotPlainAndBadArguments) {
  const process::ScratchDir tmp = process::ScratchDir::Create("aftershock-collect-test");
  const std::string log_path = tmp.path() + "/evil.log";
  std::ofstream(log_path) << "##aftershock BEGIN x.csv set=.. scenario=etc\nunix_ms,second\n##aftershock END x.csv rows=0\n";
  Result r = Collect({"--out=" + tmp.path() + "/out", log_path});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("set '..', scenario 'etc' or file 'x.csv' is not a plain name; not written"));
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/etc"));
  EXPECT_EQ(Collect({log_path}).code, 2);
  EXPECT_EQ(Collect({"--out=x", "--bogus", log_path}).code, 2);
  r = Collect({"--out=x", tmp.path() + "/missing.log"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("cannot read"));
}

TEST(Collect, AnEndWithoutItsBeginIsReported) {
  const Extraction x = ExtractBlocks("1000,0.000,apply,stall,x\n##aftershock END chaos-timeline.csv rows=1\n", "tail.log");
  EXPECT_THAT(x.blocks, IsEmpty());
  ASSERT_EQ(x.errors.size(), 1u);
  EXPECT_THAT(x.errors[0], HasSubstr("tail.log:2: END marker without its BEGIN"));
}

}  // namespace
}  // namespace aftershock::report_tools
