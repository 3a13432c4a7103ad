#include "framework/process/log_tail.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace aftershock::process {
namespace {

TEST(TailOfFileTest, KeepsTheLastLines) {
  const std::string path = testing::TempDir() + "/log_tail_test.log";
  std::ofstream(path) << "one\ntwo\nthree\nfour\n";
  EXPECT_EQ(TailOfFile(path, 2), "three\nfour\n");
  EXPECT_EQ(TailOfFile(path, 10), "one\ntwo\nthree\nfour\n");
  EXPECT_EQ(TailOfFile(path + ".missing", 5), "");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace aftershock::process
