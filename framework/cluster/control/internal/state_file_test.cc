#include "framework/cluster/control/internal/state_file.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace aftershock::cluster::internal {
namespace {

ClusterStateFile Sample() {
  ClusterStateFile state;
  state.socket = "/tmp/x/control.sock";
  state.pid = 4242;
  state.started_unix_ms = 1700000000123;
  state.replicas = {{"a", "127.0.0.1:24001"}, {"b", "127.0.0.1:24002"}, {"c", "127.0.0.1:24003"}};
  state.data_dir = "/tmp/aftershock-db-abc";
  state.work_dir = "/tmp/aftershock-cluster-abc";
  state.extra = {{"store", "memory"}};
  return state;
}

TEST(StateFileTest, FormatsKeyValueLines) {
  EXPECT_EQ(FormatStateFile(Sample()),
            "socket=/tmp/x/control.sock\n"
            "pid=4242\n"
            "started_unix_ms=1700000000123\n"
            "replica.a=127.0.0.1:24001\n"
            "replica.b=127.0.0.1:24002\n"
            "replica.c=127.0.0.1:24003\n"
            "replicas=127.0.0.1:24001,127.0.0.1:24002,127.0.0.1:24003\n"
            "data_dir=/tmp/aftershock-db-abc\n"
            "work_dir=/tmp/aftershock-cluster-abc\n"
            "store=memory\n");
}

TEST(StateFileTest, ParsesWhatItFormats) { EXPECT_EQ(ParseStateFile(FormatStateFile(Sample())), Sample()); }

TEST(StateFileTest, RejectsMalformedLinesAndMissingKeys) {
  EXPECT_THROW(ParseStateFile("socket=/s\npid=12\nnot a pair\n"), std::runtime_error);
  EXPECT_THROW(ParseStateFile("pid=12\n"), std::runtime_error);
  EXPECT_THROW(ParseStateFile("socket=/s\n"), std::runtime_error);
  EXPECT_THROW(ParseStateFile("socket=/s\npid=12x\n"), std::runtime_error);
  EXPECT_EQ(ParseStateFile("# comment\nsocket=/s\npid=12\n").pid, 12);
}

TEST(StateFileTest, WritesAtomicallyAndReadsBack) {
  const std::string dir = std::filesystem::temp_directory_path() / ("state-file-test-" + std::to_string(::getpid()));
  const std::string path = dir + "/sub/state";
  WriteStateFile(path, Sample());
  EXPECT_EQ(ReadStateFile(path), Sample());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir + "/sub"), std::filesystem::directory_iterator()), 1);
  std::filesystem::remove_all(dir);
  EXPECT_THROW(ReadStateFile(path), std::runtime_error);
}

// Sets (or unsets, for nullptr) an environment variable for one test and restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    if (old != nullptr) saved_ = old;
    had_ = old != nullptr;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_.c_str(), saved_.c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_, saved_;
  bool had_ = false;
};

TEST(StateFileTest, DefaultPathFollowsTheEnvironmentElseThePerUserRuntimeFolder) {
  {
    ScopedEnv state("AFTERSHOCK_CLUSTER_STATE", "/tmp/elsewhere/state");
    EXPECT_EQ(DefaultStateFilePath(), "/tmp/elsewhere/state");
  }
  ScopedEnv state("AFTERSHOCK_CLUSTER_STATE", nullptr);
  {
    ScopedEnv xdg("XDG_RUNTIME_DIR", "/run/user/4242");
    EXPECT_EQ(DefaultStateFilePath(), "/run/user/4242/aftershock/state");
  }
  ScopedEnv xdg("XDG_RUNTIME_DIR", nullptr);
  EXPECT_EQ(DefaultStateFilePath(), "/tmp/aftershock-" + std::to_string(::geteuid()) + "/state");
}

class StateDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("state-dir-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  static std::string Refusal(const std::string& dir) {
    try {
      PrepareStateDir(dir);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }

  std::filesystem::path root_;
};

TEST_F(StateDirTest, CreatesAMissingFolderPrivate) {
  const std::string dir = (root_ / "a" / "b").string();
  PrepareStateDir(dir);
  struct stat st {};
  ASSERT_EQ(::lstat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(st.st_uid, ::geteuid());
  PrepareStateDir(dir);  // again: accepted as it is
}

TEST_F(StateDirTest, AcceptsAnOwnFolderThatOthersCannotWriteTo) {
  const std::string dir = (root_ / "mine").string();
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  EXPECT_EQ(Refusal(dir), "");
}

TEST_F(StateDirTest, RefusesASymlink) {
  const std::filesystem::path real = root_ / "real";
  std::filesystem::create_directories(real);
  ::chmod(real.c_str(), 0700);
  const std::filesystem::path link = root_ / "link";
  std::filesystem::create_directory_symlink(real, link);
  const std::string refusal = Refusal(link.string());
  EXPECT_NE(refusal.find("refusing the cluster state folder " + link.string() + ": it is a symlink"),
            std::string::npos)
      << refusal;
}

TEST_F(StateDirTest, RefusesAFolderOwnedByAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to chown a folder to another user";
  const passwd* nobody = ::getpwnam("nobody");
  ASSERT_NE(nobody, nullptr) << "no 'nobody' user";
  const std::string dir = (root_ / "theirs").string();
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  ASSERT_EQ(::chown(dir.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  const std::string refusal = Refusal(dir);
  EXPECT_NE(refusal.find("refusing the cluster state folder " + dir + ": it is owned by uid " +
                         std::to_string(nobody->pw_uid) + ", not by this user"),
            std::string::npos)
      << refusal;
}

TEST_F(StateDirTest, RefusesAGroupOrWorldWritableFolder) {
  for (const mode_t mode : {0777u, 0720u, 0702u}) {
    const std::string dir = (root_ / ("open-" + std::to_string(mode))).string();
    ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
    ASSERT_EQ(::chmod(dir.c_str(), mode), 0);
    const std::string refusal = Refusal(dir);
    EXPECT_NE(refusal.find(dir + ": it is group- or world-writable"), std::string::npos) << refusal;
  }
}

TEST_F(StateDirTest, RefusesAFile) {
  const std::string file = (root_ / "file").string();
  { std::ofstream(file) << "x"; }
  EXPECT_NE(Refusal(file).find("it is not a folder"), std::string::npos);
}

TEST_F(StateDirTest, TheStateFileIsPrivateAndNeverWrittenThroughASymlink) {
  const std::string path = (root_ / "state").string();
  WriteStateFile(path, Sample());
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  // A symlink planted where the temporary file goes is not followed: the write fails, the target
  // stays untouched.
  const std::string target = (root_ / "victim").string();
  { std::ofstream(target) << "precious"; }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::filesystem::create_symlink(target, tmp);
  WriteStateFile(path, Sample());  // the leftover is unlinked (never followed), then created afresh
  std::ifstream in(target);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "precious");
}

}  // namespace
}  // namespace aftershock::cluster::internal
