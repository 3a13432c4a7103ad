#include "framework/process/scratch_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace aftershock::process {
namespace {

namespace fs = std::filesystem;

TEST(ScratchDirTest, CreatesAFreshDirectoryAndRemovesItWithItsFiles) {
  std::string path;
  {
    ScratchDir scratch = ScratchDir::Create("aftershock-scratch-test");
    path = scratch.path();
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_EQ(fs::path(path).filename().string().rfind("aftershock-scratch-test-", 0), 0u) << path;
    std::ofstream(path + "/port") << 1234;
    fs::create_directories(path + "/nested/deeper");
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(ScratchDirTest, MovingHandsOverOwnershipAndAssigningRemovesTheOldDirectory) {
  ScratchDir first = ScratchDir::Create("aftershock-scratch-test");
  const std::string first_path = first.path();
  ScratchDir moved(std::move(first));
  EXPECT_EQ(moved.path(), first_path);
  EXPECT_EQ(first.path(), "");  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  ScratchDir second = ScratchDir::Create("aftershock-scratch-test");
  const std::string second_path = second.path();
  moved = std::move(second);
  EXPECT_FALSE(fs::exists(first_path));
  EXPECT_TRUE(fs::exists(second_path));
  EXPECT_EQ(moved.path(), second_path);
}

TEST(ScratchDirTest, AnUncreatableDirectoryNamesThePath) {
  try {
    ScratchDir::Create("no/such/parent/dir");
    ADD_FAILURE() << "created a directory under a missing parent";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no/such/parent/dir-XXXXXX"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aftershock::process
