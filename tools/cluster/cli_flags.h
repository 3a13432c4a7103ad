// Shared by aftershock-cluster's verbs: exit codes, number/duration/fraction parsing, the control
// socket next to the state file, and a liveness check by pid.
//
//   std::optional<std::chrono::milliseconds> hold = ParseDuration("30m");
//   if (!ParseNumber(flags["seconds"])) return Usage("partition needs --seconds=N (N >= 1)");
#ifndef AFTERSHOCK_TOOLS_CLUSTER_CLI_FLAGS_H_
#define AFTERSHOCK_TOOLS_CLUSTER_CLI_FLAGS_H_

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>

namespace aftershock::cluster::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

bool ProcessAlive(pid_t pid);
std::string SocketPathFor(const std::string& state_path);
// A whole number of up to 9 digits.
std::optional<int> ParseNumber(const std::string& text);
// "250ms", "90s", "30m", "2h".
std::optional<std::chrono::milliseconds> ParseDuration(const std::string& text);
// 0..1.
std::optional<double> ParseFraction(const std::string& text);
// The shortest of "2h", "30m", "90s", "250ms" that is exact.
std::string FormatDuration(std::chrono::milliseconds d);

}  // namespace aftershock::cluster::cli

#endif  // AFTERSHOCK_TOOLS_CLUSTER_CLI_FLAGS_H_
