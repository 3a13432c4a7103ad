#include "framework/process/scratch_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace aftershock::process {

ScratchDir ScratchDir::Create(const std::string& prefix) {
  const std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  std::string path = pattern;  // mkdtemp fills in the X's, also when it fails.
  if (::mkdtemp(path.data()) == nullptr) {
    throw std::runtime_error("cannot create a scratch directory " + pattern + ": " + std::strerror(errno));
  }
  return ScratchDir(path);
}

ScratchDir& ScratchDir::operator=(ScratchDir&& other) noexcept {
  if (this != &other) {
    ScratchDir old(std::move(*this));  // Removes the directory this one held.
    path_ = std::exchange(other.path_, {});
  }
  return *this;
}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace aftershock::process
