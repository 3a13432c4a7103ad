// The operator halt: an absolute file path, a refusal naming the file while it exists, and the halt
// as an envelope condition that breaches when the file appears.
#include "framework/safety/operator_halt.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "framework/safety/abort_envelope.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace aftershock::safety {
namespace {

using ::testing::HasSubstr;

std::filesystem::path TempPath(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("aftershock-halt-test-" + std::to_string(::getpid()) + "-" + name);
}

TEST(OperatorHalt, ThePathMustBeAbsolute) {
  EXPECT_THROW(OperatorHalt(""), std::invalid_argument);
  try {
    OperatorHalt("halt");
    FAIL() << "a relative path was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'halt' is not an absolute path"));
  }
}

TEST(OperatorHalt, RefusesWhileTheFileExists) {
  const std::filesystem::path path = TempPath("refuse");
  std::filesystem::remove(path);
  const OperatorHalt halt(path.string());
  EXPECT_FALSE(halt.Present());
  EXPECT_EQ(halt.Check(), std::nullopt);
  std::ofstream(path) << "maintenance\n";
  ASSERT_TRUE(halt.Present());
  EXPECT_EQ(halt.Check(), "operator halt: " + path.string() + " exists (remove it to run scenarios again)");
  std::filesystem::remove(path);
  EXPECT_EQ(halt.Check(), std::nullopt);
}

TEST(OperatorHalt, AsAConditionItBreachesWhenTheFileAppears) {
  const std::filesystem::path path = TempPath("condition");
  std::filesystem::remove(path);
  const OperatorHalt halt(path.string());
  AbortEnvelope envelope({halt.AsCondition()}, {.interval = std::chrono::milliseconds(20)});
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(envelope.Breached());
  std::ofstream(path) << "stop\n";
  for (int i = 0; i < 250 && !envelope.Breached(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::filesystem::remove(path);
  ASSERT_TRUE(envelope.Breached());
  EXPECT_EQ(envelope.FirstBreach()->condition, "operator-halt");
  EXPECT_EQ(envelope.FirstBreach()->reason, path.string() + " exists (remove it to run scenarios again)");
}

}  // namespace
}  // namespace aftershock::safety
