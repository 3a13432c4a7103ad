#include "framework/cluster/local/internal/artifact_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "framework/cluster/local/cluster_error.h"

namespace aftershock::cluster::internal {

namespace fs = std::filesystem;

// Relative, no `..`, no `.` part.
void CheckArtifactName(const std::string& name) {
  const fs::path path(name);
  bool ok = !name.empty() && path.is_relative();
  for (const fs::path& part : path) {
    if (part == ".." || part == ".") ok = false;
  }
  if (!ok) {
    throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT,
                       "refusing to write the artifact '" + name + "': not a plain name under the artifacts folder");
  }
}

void ArtifactFolder(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    throw ClusterError(grpc::StatusCode::INTERNAL, "cannot create " + dir + ": " + (ec ? ec.message() : std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
    throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT,
                       "refusing to collect artifacts into " + dir + ": " +
                           (S_ISLNK(st.st_mode) ? "it is a symlink" : "it is not a folder"));
  }
}

void WriteNoFollow(const std::string& to, const std::string& text) {
  const int fd = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ELOOP) {
    throw ClusterError(grpc::StatusCode::INVALID_ARGUMENT, "refusing to write the artifact " + to + ": it is a symlink");
  }
  if (fd < 0) throw ClusterError(grpc::StatusCode::INTERNAL, "cannot write " + to + ": " + std::strerror(errno));
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (written != text.size()) throw ClusterError(grpc::StatusCode::INTERNAL, "cannot write " + to);
}


bool CopyNoFollow(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  WriteNoFollow(to, text.str());
  return true;
}

}  // namespace aftershock::cluster::internal
