// The file writes of LocalCluster::CollectArtifacts: only under the caller's artifacts folder, and
// never through a symlink (the supervisor may run as root while the folder is the caller's).
//
//   CheckArtifactName("replica-a.log");               // ok; "../x", "/etc/x", "a/./b" are refused
//   ArtifactFolder(dir + "/database");                // created when absent; a symlink is refused
//   CopyNoFollow(log_path, dir + "/replica-a.log");   // false when the source does not exist
//   WriteNoFollow(dir + "/status.txt", text);
//
// Every refusal is a ClusterError (INVALID_ARGUMENT) naming the path; I/O errors are INTERNAL.
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_ARTIFACT_FILES_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_ARTIFACT_FILES_H_

#include <string>

namespace aftershock::cluster::internal {

// A name written under the artifacts folder: relative, no `..` or `.` part.
void CheckArtifactName(const std::string& name);
// Creates `dir` (and its parents) when absent; refuses it when it is a symlink or not a folder.
void ArtifactFolder(const std::string& dir);
// Writes `text` to `to` (created 0644, or truncated), with O_NOFOLLOW.
void WriteNoFollow(const std::string& to, const std::string& text);
// Copies `from` to `to` like WriteNoFollow; false when `from` cannot be read.
bool CopyNoFollow(const std::string& from, const std::string& to);

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_ARTIFACT_FILES_H_
