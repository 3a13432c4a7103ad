// Helpers for the private servers aftershock starts on loopback (AlertingStack's Prometheus
// and Alertmanager, PrometheusServer, safety's node exporter): a free port, a temporary directory,
// a log's tail for errors, and a readiness poll that notices an early exit.
//
//   const int port = FreeLoopbackPort();
//   WaitHttpReady(child, "prometheus", port, "/-/ready", log_path, std::chrono::seconds(30));
#ifndef AFTERSHOCK_FRAMEWORK_ALERTING_LOCAL_SERVER_H_
#define AFTERSHOCK_FRAMEWORK_ALERTING_LOCAL_SERVER_H_

#include <chrono>
#include <filesystem>
#include <string>

#include "framework/process/child_process.h"

namespace aftershock::alerting {

inline constexpr const char* kLoopbackHost = "127.0.0.1";

// A loopback port that is free now (the kernel's pick for port 0). The service binds it a moment
// later; a lost race shows up as "address already in use" in the readiness error.
int FreeLoopbackPort();
// A fresh directory under the system's temporary directory, "<prefix>-XXXXXX".
std::filesystem::path MakeTempDir(const std::string& prefix);
// The last `count` lines of a log, each "  | line\n", for error messages.
std::string LogTail(const std::filesystem::path& path, int count = 25);
// Polls GET http://127.0.0.1:<port><target> until 200; throws std::runtime_error with the log's tail
// when the child exits first or the timeout passes.
void WaitHttpReady(process::ChildProcess& child, const std::string& name, int port, const std::string& target,
                   const std::filesystem::path& log_path, std::chrono::milliseconds timeout);

}  // namespace aftershock::alerting

#endif  // AFTERSHOCK_FRAMEWORK_ALERTING_LOCAL_SERVER_H_
