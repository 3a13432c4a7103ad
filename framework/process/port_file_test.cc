#include "framework/process/port_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "framework/process/scratch_dir.h"

namespace aftershock::process {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(PortFileTest, ReadsOnlyAValidPort) {
  ScratchDir scratch = ScratchDir::Create("aftershock-port-test");
  const std::string path = scratch.path() + "/port";
  EXPECT_EQ(ReadPortFile(path), std::nullopt) << "absent";
  std::ofstream(path) << "";
  EXPECT_EQ(ReadPortFile(path), std::nullopt) << "empty";
  std::ofstream(path, std::ios::trunc) << "70000";
  EXPECT_EQ(ReadPortFile(path), std::nullopt) << "out of range";
  std::ofstream(path, std::ios::trunc) << "0";
  EXPECT_EQ(ReadPortFile(path), std::nullopt) << "zero";
  std::ofstream(path, std::ios::trunc) << "43210\n";
  EXPECT_EQ(ReadPortFile(path), 43210);
}

TEST(PortFileTest, WaitReturnsThePortTheChildWrites) {
  ScratchDir scratch = ScratchDir::Create("aftershock-port-test");
  const std::string path = scratch.path() + "/port";
  ChildOptions options;
  options.program = "/bin/sh";
  options.args = {"-c", "sleep 0.2; echo 4321 > " + path + ".tmp; mv " + path + ".tmp " + path + "; sleep 5"};
  ChildProcess child = ChildProcess::Start(options);
  const PortFileWait wait = WaitForPortFile(child, path, steady_clock::now() + milliseconds(10000));
  EXPECT_EQ(wait.port, 4321);
  EXPECT_EQ(wait.failure, "");
  child.Stop(milliseconds(1000));
}

TEST(PortFileTest, WaitReportsAChildThatExitsFirst) {
  ScratchDir scratch = ScratchDir::Create("aftershock-port-test");
  ChildOptions options;
  options.program = "/bin/sh";
  options.args = {"-c", "exit 3"};
  ChildProcess child = ChildProcess::Start(options);
  const PortFileWait wait = WaitForPortFile(child, scratch.path() + "/port", steady_clock::now() + milliseconds(10000));
  EXPECT_EQ(wait.port, std::nullopt);
  EXPECT_EQ(wait.failure, "exited with code 3 before it was ready");
}

TEST(PortFileTest, WaitReportsATimeout) {
  ScratchDir scratch = ScratchDir::Create("aftershock-port-test");
  ChildOptions options;
  options.program = "/bin/sh";
  options.args = {"-c", "sleep 5"};
  ChildProcess child = ChildProcess::Start(options);
  const PortFileWait wait = WaitForPortFile(child, scratch.path() + "/port", steady_clock::now() + milliseconds(1000));
  EXPECT_EQ(wait.port, std::nullopt);
  EXPECT_EQ(wait.failure, "wrote no port file within 1 s");
  child.Stop(milliseconds(1000));
}

}  // namespace
}  // namespace aftershock::process
