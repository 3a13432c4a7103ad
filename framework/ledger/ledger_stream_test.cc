#include "framework/ledger/ledger_stream.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "framework/ledger/ledger_file.h"
#include "framework/ledger/promise_ledger.h"
#include "gtest/gtest.h"

namespace aftershock::ledger {
namespace {

std::string StreamTempPath(const std::string& name) {
  return (std::filesystem::path(testing::TempDir()) / ("ledger_stream_test_" + name)).string();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(LedgerStreamTest, ClosedStreamIsACompleteLedgerFileWithItsHeader) {
  const std::string path = StreamTempPath("closed.tsv");
  auto stream = LedgerStream::Open(path, {{"target.kind", "pseudonym"}, {"target.addresses", "127.0.0.1:1"}});
  stream->Append(Promise{"alice", "p-1", 10});
  stream->Append(IndeterminatePromise{"bob", 11, kCodeDeadlineExceeded});
  stream->Append(Promise{"carol", "p-2", 12});
  stream->Close();
  const LedgerFile file = ReadLedgerFile(path);
  EXPECT_TRUE(file.complete);
  EXPECT_EQ(file.acknowledged, 2u);
  EXPECT_EQ(file.HeaderValue("target.addresses"), "127.0.0.1:1");
  EXPECT_EQ(file.promises, (std::vector<Promise>{{"alice", "p-1", 10}, {"carol", "p-2", 12}}));
  EXPECT_EQ(file.indeterminate, (std::vector<IndeterminatePromise>{{"bob", 11, kCodeDeadlineExceeded}}));
  std::filesystem::remove(path);
}

TEST(LedgerStreamTest, StreamedPromisesKeepTheirAttributes) {
  const std::string path = StreamTempPath("attributes.tsv");
  PromiseLedger ledger;
  ledger.AttachStream(LedgerStream::Open(path, {{"target.kind", "kv"}}));
  ledger.RecordAcknowledged(Promise{"k-1", "v-1", 10, PromiseKind::kWritten, {{"shard", "1"}}});
  ledger.RecordAcknowledged(Promise{"k-2", "v-2", 11, PromiseKind::kWritten});
  ledger.CloseStream();
  const LedgerFile file = ReadLedgerFile(path);
  EXPECT_EQ(file.promises, ledger.Sample());
  ASSERT_EQ(file.promises.size(), 2u);
  EXPECT_EQ(file.promises[0].attributes.Get("shard"), "1");
  EXPECT_TRUE(file.promises[1].attributes.empty());
  std::filesystem::remove(path);
}

TEST(LedgerStreamTest, LinesReachTheFileWhileTheStreamIsOpen) {
  const std::string path = StreamTempPath("open.tsv");
  auto stream = LedgerStream::Open(path, {}, std::chrono::milliseconds(50));
  stream->Append(Promise{"k", "v", 1});
  // Bounded wait for the writer thread (the interval is 50 ms; allow a loaded machine 5 s).
  std::string text;
  for (int i = 0; i < 100 && text.find("promise\t1\tk\tv") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    text = ReadText(path);
  }
  EXPECT_NE(text.find("promise\t1\tk\tv"), std::string::npos) << text;
  const LedgerFile partial = ParseLedgerFile(text, path);
  EXPECT_FALSE(partial.complete);  // what a killed run leaves behind: read, but marked incomplete
  EXPECT_EQ(partial.promises.size(), 1u);
  stream->Close();
  EXPECT_TRUE(ReadLedgerFile(path).complete);
  std::filesystem::remove(path);
}

TEST(LedgerStreamTest, TheLedgerAppendsEveryRecordEvenBeyondItsSample) {
  const std::string path = StreamTempPath("ledger.tsv");
  PromiseLedger ledger(LedgerOptions{.capacity = 2});
  ledger.AttachStream(LedgerStream::Open(path, {}));
  for (int i = 0; i < 50; ++i) ledger.RecordAcknowledged({"k" + std::to_string(i), "v", i});
  ledger.RecordIndeterminate({"u", 60, kCodeUnavailable});
  ledger.CloseStream();
  const LedgerFile file = ReadLedgerFile(path);
  EXPECT_EQ(file.promises.size(), 50u);
  EXPECT_EQ(ledger.Sample().size(), 2u);
  EXPECT_EQ(file.indeterminate.size(), 1u);
  std::filesystem::remove(path);
}

TEST(LedgerStreamTest, OpenErrorsNameThePath) {
  try {
    LedgerStream::Open(StreamTempPath("no/such/dir/x.tsv"), {});
    FAIL() << "expected LedgerFileError";
  } catch (const LedgerFileError& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/dir/x.tsv: cannot open for writing"), std::string::npos) << e.what();
  }
  EXPECT_THROW(LedgerStream::Open(StreamTempPath("bad-header.tsv"), {{"Bad Name", "x"}}), LedgerFileError);
}

}  // namespace
}  // namespace aftershock::ledger
