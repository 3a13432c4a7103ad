// RecoverWorkerFiles / EmitWorkerFiles: a worker's files through its log, never a partial one.
#include "tools/loadgen/worker_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "framework/process/scratch_dir.h"
#include "tools/loadgen/worker_run.h"

namespace aftershock::loadgen {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A worker's two files in a folder, as WriteWorkerFiles leaves them (the content is opaque here).
process::ScratchDir WorkerFolder() {
  process::ScratchDir dir = process::ScratchDir::Create("worker-log-test");
  std::ofstream(HealthPath(dir.path(), 1)) << "scheduled=10\ndispatched=10\n";
  std::ofstream(TimelinePath(dir.path(), 1)) << "aftershock-timeline 1\nsecond 0 offered=10\nend\n";
  return dir;
}

TEST(WorkerLogTest, EmittedFilesComeBackByteForByteThroughAPrefixedInterleavedLog) {
  process::ScratchDir from = WorkerFolder();
  std::ostringstream emitted;
  EmitWorkerFiles(emitted, from.path(), 1);
  EXPECT_THAT(emitted.str(), HasSubstr("##aftershock-loadgen BEGIN worker-1.health\nscheduled=10\n"));
  EXPECT_THAT(emitted.str(), HasSubstr("##aftershock-loadgen END worker-1.timeline lines=3\n"));
  // As `kubectl logs --prefix` shows it, with another container's line in the middle of a block.
  std::string log = "[pod/w-1/worker] aftershock-loadgen: worker 1 of 2\n";
  std::istringstream lines(emitted.str());
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    log += "[pod/w-1/worker] " + line + "\n";
    if (n == 2) log += "[pod/w-1/sidecar] second 9 offered=999\n";
  }
  process::ScratchDir to = process::ScratchDir::Create("worker-log-test");
  const RecoveredFiles r = RecoverWorkerFiles(log, "w-1.log", to.path());
  EXPECT_THAT(r.problems, IsEmpty());
  EXPECT_THAT(r.written, ElementsAre("worker-1.health", "worker-1.timeline"));
  EXPECT_EQ(Read(HealthPath(to.path(), 1)), Read(HealthPath(from.path(), 1)));
  EXPECT_EQ(Read(TimelinePath(to.path(), 1)), Read(TimelinePath(from.path(), 1)));
}

TEST(WorkerLogTest, ABlockCutShortIsNotWrittenAndIsNamed) {
  process::ScratchDir from = WorkerFolder();
  std::ostringstream emitted;
  EmitWorkerFiles(emitted, from.path(), 1);
  const std::string whole = emitted.str();
  process::ScratchDir to = process::ScratchDir::Create("worker-log-test");
  // The pod died while printing the timeline: no END.
  const std::string cut = whole.substr(0, whole.find("end\n"));
  RecoveredFiles r = RecoverWorkerFiles(cut, "w-1.log", to.path());
  EXPECT_THAT(r.written, ElementsAre("worker-1.health"));
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_THAT(r.problems[0], HasSubstr("w-1.log:5: worker-1.timeline cut short (the log ended first): not recovered"));
  EXPECT_FALSE(std::filesystem::exists(TimelinePath(to.path(), 1)));
  // A line lost in the middle: the END's count no longer matches.
  std::string lost = whole;
  lost.erase(lost.find("second 0 offered=10\n"), std::string("second 0 offered=10\n").size());
  r = RecoverWorkerFiles(lost, "w-1.log", to.path());
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_THAT(r.problems[0], HasSubstr("worker-1.timeline cut short (its END says '##aftershock-loadgen END "
                                       "worker-1.timeline lines=3' after 2 lines)"));
  EXPECT_FALSE(std::filesystem::exists(TimelinePath(to.path(), 1)));
}

TEST(WorkerLogTest, ALogCanNameNoOtherFile) {
  process::ScratchDir to = process::ScratchDir::Create("worker-log-test");
  const RecoveredFiles r = RecoverWorkerFiles(
      "##aftershock-loadgen BEGIN ../../etc/passwd\nroot\n##aftershock-loadgen END ../../etc/passwd lines=1\n", "x.log",
      to.path());
  EXPECT_THAT(r.written, IsEmpty());
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_THAT(r.problems[0], HasSubstr("'../../etc/passwd' is not a worker file name"));
  EXPECT_TRUE(std::filesystem::is_empty(to.path()));
}

// A worker that kept a ledger: it travels too, between the health and the timeline (the timeline
// stays last, so a log cut before it never leaves a complete-looking timeline).
TEST(WorkerLogTest, ALedgerTravelsBetweenTheHealthAndTheTimeline) {
  process::ScratchDir from = WorkerFolder();
  const std::string ledger = "# aftershock-ledger v3\n# worker=1\nkind\tunix_ms\tkey\tvalue\tcode\tattributes\n"
                             "promise\t1733040000123\talice\tp-17\t\t\n# end acknowledged=1 indeterminate=0\n";
  std::ofstream(LedgerPath(from.path(), 1)) << ledger;
  std::ostringstream emitted;
  EmitWorkerFiles(emitted, from.path(), 1);
  const std::string text = emitted.str();
  EXPECT_LT(text.find("BEGIN worker-1.health"), text.find("BEGIN worker-1.ledger"));
  EXPECT_LT(text.find("BEGIN worker-1.ledger"), text.find("BEGIN worker-1.timeline"));
  process::ScratchDir to = process::ScratchDir::Create("worker-log-test");
  const RecoveredFiles r = RecoverWorkerFiles(text, "w-1.log", to.path());
  EXPECT_THAT(r.problems, IsEmpty());
  EXPECT_THAT(r.written, ElementsAre("worker-1.health", "worker-1.ledger", "worker-1.timeline"));
  EXPECT_EQ(Read(LedgerPath(to.path(), 1)), ledger);
}

}  // namespace
}  // namespace aftershock::loadgen
