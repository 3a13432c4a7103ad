// EnsureFileDescriptors: makes room for a load run's sockets before it starts.
//
// An HTTP pool sized to the runner's in-flight ceiling opens up to that many connections (and a
// target started as a child inherits the limit and accepts as many). The soft RLIMIT_NOFILE is raised
// to the hard limit when it is short of `connections` plus a headroom for everything else (the
// target's own sockets, logs, clients); when even the hard limit cannot hold them the answer is the
// error to report, naming the limit and the knob to lower.
//
//   if (auto error = process::EnsureFileDescriptors(config.max_in_flight)) FAIL() << *error;
#ifndef AFTERSHOCK_FRAMEWORK_PROCESS_FD_LIMIT_H_
#define AFTERSHOCK_FRAMEWORK_PROCESS_FD_LIMIT_H_

#include <optional>
#include <string>

namespace aftershock::process {

inline constexpr int kFileDescriptorHeadroom = 1024;

// std::nullopt when the limit fits (raised if needed); the error otherwise.
std::optional<std::string> EnsureFileDescriptors(int connections, int headroom = kFileDescriptorHeadroom);

}  // namespace aftershock::process

#endif  // AFTERSHOCK_FRAMEWORK_PROCESS_FD_LIMIT_H_
