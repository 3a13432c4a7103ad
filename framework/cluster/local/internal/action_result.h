// Small helpers the local cluster's parts share: the ActionResult they answer with, times in ms.
//
//   const std::int64_t started = UnixMs();
//   return Result(started, "b", "killed replica b (pid 42)");
#ifndef AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_ACTION_RESULT_H_
#define AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_ACTION_RESULT_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "framework/cluster/control/cluster_control.pb.h"

namespace aftershock::cluster::internal {

inline std::int64_t UnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline std::string Ms(std::chrono::milliseconds ms) { return std::to_string(ms.count()) + " ms"; }

inline std::string Join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : separator) + part;
  return out;
}

inline v1::ActionResult Result(std::int64_t started, const std::string& target, const std::string& summary) {
  v1::ActionResult result;
  result.set_summary(summary);
  result.set_target(target);
  result.set_started_unix_ms(started);
  result.set_finished_unix_ms(UnixMs());
  return result;
}

}  // namespace aftershock::cluster::internal

#endif  // AFTERSHOCK_FRAMEWORK_CLUSTER_LOCAL_INTERNAL_ACTION_RESULT_H_
