// Test-only helpers: a temporary folder and a bounded child process with captured output.
//
//   TempDir dir;                                    // removed with everything in it
//   ProcessResult r = RunProcess({"/bin/echo", "hi"}, {}, dir.path());
//   EXPECT_EQ(r.exit_code, 0); EXPECT_EQ(r.out, "hi\n");
#ifndef AFTERSHOCK_FRAMEWORK_GTEST_INTERNAL_TEST_PROCESS_H_
#define AFTERSHOCK_FRAMEWORK_GTEST_INTERNAL_TEST_PROCESS_H_

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "framework/process/scratch_dir.h"

namespace aftershock::gtest_integration::internal {

// A fresh folder under the temporary directory, removed with everything in it (process::ScratchDir,
// with the path as a std::filesystem::path for `/`).
class TempDir {
 public:
  TempDir() : dir_(process::ScratchDir::Create("aftershock-gtest")) {}
  std::filesystem::path path() const { return dir_.path(); }

 private:
  process::ScratchDir dir_;
};

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

struct ProcessResult {
  int exit_code = -1;    // valid when exited
  bool exited = false;   // exited normally
  int term_signal = 0;   // valid when killed by a signal
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs `argv` with exactly the environment `env` ("NAME=value"), stdout and stderr captured
// through files in `scratch`; kills the child after `timeout`.
inline ProcessResult RunProcess(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                                const std::filesystem::path& scratch,
                                std::chrono::seconds timeout = std::chrono::seconds(60)) {
  const std::string out_path = (scratch / "child.stdout").string();
  const std::string err_path = (scratch / "child.stderr").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);

  std::vector<std::string> argv_copy = argv;
  std::vector<std::string> env_copy = env;
  std::vector<char*> c_argv;
  for (std::string& a : argv_copy) c_argv.push_back(a.data());
  c_argv.push_back(nullptr);
  std::vector<char*> c_env;
  for (std::string& e : env_copy) c_env.push_back(e.data());
  c_env.push_back(nullptr);

  ProcessResult result;
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, c_argv[0], &actions, nullptr, c_argv.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("posix_spawn " + argv[0] + " failed: " + std::to_string(rc));

  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
  }
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  return result;
}

}  // namespace aftershock::gtest_integration::internal

#endif  // AFTERSHOCK_FRAMEWORK_GTEST_INTERNAL_TEST_PROCESS_H_
