#include "framework/cluster/local/internal/artifact_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "framework/cluster/local/cluster_error.h"

namespace aftershock::cluster::internal {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ArtifactFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("artifact-files-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST(ArtifactNameTest, PlainRelativeNamesOnly) {
  EXPECT_NO_THROW(CheckArtifactName("replica-a.log"));
  EXPECT_NO_THROW(CheckArtifactName("database/etcd.log"));
  for (const char* bad : {"", "../outside.log", "a/../../b", "/etc/passwd", "./x", "a/./b", ".."}) {
    try {
      CheckArtifactName(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ClusterError& e) {
      EXPECT_EQ(e.code(), grpc::StatusCode::INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find("refusing to write the artifact '" + std::string(bad) + "'"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST_F(ArtifactFilesTest, WritesAndCopiesButNeverThroughASymlink) {
  const fs::path out = root_ / "artifacts";
  ArtifactFolder(out.string());
  EXPECT_TRUE(fs::is_directory(out));
  WriteNoFollow((out / "status.txt").string(), "steady\n");
  EXPECT_EQ(ReadAll(out / "status.txt"), "steady\n");
  { std::ofstream(root_ / "source.log") << "log line\n"; }
  EXPECT_TRUE(CopyNoFollow((root_ / "source.log").string(), (out / "copy.log").string()));
  EXPECT_EQ(ReadAll(out / "copy.log"), "log line\n");
  EXPECT_FALSE(CopyNoFollow((root_ / "missing.log").string(), (out / "missing.log").string()));

  // A symlink planted where an artifact goes: refused, its target untouched.
  { std::ofstream(root_ / "victim") << "precious\n"; }
  fs::create_symlink(root_ / "victim", out / "planted.log");
  EXPECT_THROW(WriteNoFollow((out / "planted.log").string(), "overwritten\n"), ClusterError);
  EXPECT_THROW(CopyNoFollow((root_ / "source.log").string(), (out / "planted.log").string()), ClusterError);
  EXPECT_EQ(ReadAll(root_ / "victim"), "precious\n");
}

TEST_F(ArtifactFilesTest, RefusesASymlinkedFolder) {
  fs::create_directories(root_ / "elsewhere");
  fs::create_directory_symlink(root_ / "elsewhere", root_ / "linked");
  try {
    ArtifactFolder((root_ / "linked").string());
    ADD_FAILURE() << "a symlinked folder was accepted";
  } catch (const ClusterError& e) {
    EXPECT_NE(std::string(e.what()).find("it is a symlink"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aftershock::cluster::internal
