// ScratchDir: a fresh temporary directory, removed with everything in it when its owner goes away.
// Launchers keep a child's port file and default log there.
//
//   process::ScratchDir scratch = process::ScratchDir::Create("aftershock-work");  // /tmp/aftershock-work-XXXXXX
//   std::string port_file = scratch.path() + "/port";
//   ...                                   // removed when `scratch` is destroyed or assigned over
//
// Declare it before the ChildProcess that writes into it, so the process stops before its files go.
#ifndef AFTERSHOCK_FRAMEWORK_PROCESS_SCRATCH_DIR_H_
#define AFTERSHOCK_FRAMEWORK_PROCESS_SCRATCH_DIR_H_

#include <string>
#include <utility>

namespace aftershock::process {

class ScratchDir {
 public:
  // mkdtemp of <temp dir>/<prefix>-XXXXXX; throws std::runtime_error naming the path on failure.
  static ScratchDir Create(const std::string& prefix);

  ScratchDir() = default;
  ScratchDir(ScratchDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  ScratchDir& operator=(ScratchDir&& other) noexcept;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();

  const std::string& path() const { return path_; }

 private:
  explicit ScratchDir(std::string path) : path_(std::move(path)) {}

  std::string path_;
};

}  // namespace aftershock::process

#endif  // AFTERSHOCK_FRAMEWORK_PROCESS_SCRATCH_DIR_H_
