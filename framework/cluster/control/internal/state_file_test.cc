#include "framework/cluster/control/internal/state_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
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

TEST(StateFileTest, DefaultPathFollowsTheEnvironment) {
  const char* old = std::getenv("AFTERSHOCK_CLUSTER_STATE");
  const std::string saved = old ? old : "";
  ::setenv("AFTERSHOCK_CLUSTER_STATE", "/tmp/elsewhere/state", 1);
  EXPECT_EQ(DefaultStateFilePath(), "/tmp/elsewhere/state");
  ::unsetenv("AFTERSHOCK_CLUSTER_STATE");
  EXPECT_EQ(DefaultStateFilePath(), "/tmp/aftershock-cluster/state");
  if (old) ::setenv("AFTERSHOCK_CLUSTER_STATE", saved.c_str(), 1);
}

}  // namespace
}  // namespace aftershock::cluster::internal
