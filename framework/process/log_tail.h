// TailOfFile: the last lines of a child's log, for error messages that say why it never got ready.
//
//   throw std::runtime_error("replica a never became ready; log:\n" + TailOfFile(log_path, 20));
#ifndef AFTERSHOCK_FRAMEWORK_PROCESS_LOG_TAIL_H_
#define AFTERSHOCK_FRAMEWORK_PROCESS_LOG_TAIL_H_

#include <string>

namespace aftershock::process {

// The last `max_lines` lines of a text file, each ending in '\n' ("" when it cannot be read).
std::string TailOfFile(const std::string& path, int max_lines);

}  // namespace aftershock::process

#endif  // AFTERSHOCK_FRAMEWORK_PROCESS_LOG_TAIL_H_
