#include "tools/cluster/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "fixtures/targets/pseudonym/replica_spec.h"
#include "framework/cluster/control/cluster_control_service.h"
#include "framework/cluster/control/internal/state_file.h"
#include "framework/cluster/local/local_cluster.h"
#include "tools/cluster/cli_flags.h"

namespace aftershock::cluster::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kUpTimeout = std::chrono::minutes(10);

void Notify(int fd, const std::string& line) {
  if (fd < 0) return;
  std::string text = line + "\n";
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n') c = '|';
  }
  return text;
}

// The supervisor itself; `notify_fd` gets "READY <seconds>" or "ERROR <message>".
int RunSupervisor(const UpOptions& up, int notify_fd) {
  // SIGINT/SIGTERM are taken synchronously by the main loop; every thread inherits the mask and
  // children start with an empty one (ChildProcess resets it).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);

  // Children inherit the nice value: the whole cluster yields the CPU to the load generator.
  if (up.nice != 0) {
    errno = 0;
    if (::nice(up.nice) == -1 && errno != 0) {
      std::cerr << "[supervisor] warning: nice(" << up.nice << ") failed: " << std::strerror(errno)
                << "; the cluster runs at the caller's priority\n";
    }
  }
  const auto t0 = Clock::now();
  const std::string socket_path = SocketPathFor(up.state_path);
  const std::string log_path = up.state_path + ".log";
  LocalClusterOptions options;
  options.lease = std::chrono::minutes(up.lease_minutes);
  options.supervisor_log_path = log_path;
  options.janitor_state_file = up.state_path;
  std::cerr << "[supervisor] pid " << ::getpid() << ": bringing the local cluster up (" << up.replicas
            << " replicas, store " << up.store << ", nice " << up.nice << ")\n";

  std::unique_ptr<LocalCluster> cluster;
  std::unique_ptr<ClusterControlServer> server;
  std::atomic<bool> shutdown_requested{false};
  try {
    // The cluster knows no target: the CLI runs the pseudonym service's spec.
    options.replicas = pseudonym::PseudonymReplicaSpec({.store = up.store, .replicas = up.replicas});
    cluster = LocalCluster::Start(options);
    server = ClusterControlServer::Start(*cluster, socket_path, [&] { shutdown_requested = true; });
    internal::ClusterStateFile state;
    state.socket = socket_path;
    state.pid = ::getpid();
    state.started_unix_ms = cluster->StartedUnixMs();
    state.replicas = cluster->Replicas();
    state.data_dir = cluster->DataDir();
    state.work_dir = cluster->WorkDir();
    state.extra["store"] = cluster->ReplicaStore();
    state.extra["log"] = log_path;
    internal::WriteStateFile(up.state_path, state);
  } catch (const std::exception& e) {
    std::cerr << "[supervisor] bring-up failed: " << e.what() << "\n";
    server.reset();
    cluster.reset();
    Notify(notify_fd, "ERROR " + OneLine(e.what()));
    return kExitFailed;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  std::ostringstream ready;
  ready << std::fixed << std::setprecision(1) << seconds;
  std::cerr << "[supervisor] steady after " << ready.str() << " s; store " << cluster->ReplicaStore()
            << "; control socket " << socket_path << "\n";
  Notify(notify_fd, "READY " + ready.str() + " " + cluster->ReplicaStore());
  if (notify_fd >= 0) ::close(notify_fd);

  std::string why;
  while (why.empty()) {
    timespec tick{0, 200 * 1000 * 1000};
    const int sig = ::sigtimedwait(&stop_signals, nullptr, &tick);
    if (sig == SIGINT || sig == SIGTERM) why = sig == SIGINT ? "SIGINT" : "SIGTERM";
    if (shutdown_requested) why = "Shutdown RPC";
    if (cluster->LeaseExpired()) why = "idle lease expired";
    if (up.watch_pid > 0 && ::kill(up.watch_pid, 0) != 0 && errno == ESRCH) {
      why = "watched process " + std::to_string(up.watch_pid) + " is gone";
    }
  }
  std::cerr << "[supervisor] stopping (" << why << ")\n";
  // The state file goes first, so nobody attaches to a cluster that is going away.
  try {
    if (internal::ReadStateFile(up.state_path).pid == ::getpid()) fs::remove(up.state_path);
  } catch (const std::exception&) {
  }
  server.reset();
  cluster->Stop();
  cluster.reset();
  std::cerr << "[supervisor] stopped\n";
  return kExitOk;
}

}  // namespace

int RunUp(const UpOptions& up) {
  // One supervisor per state file.
  try {
    const internal::ClusterStateFile old = internal::ReadStateFile(up.state_path);
    if (ProcessAlive(old.pid)) {
      std::cout << "aftershock-cluster: already up (supervisor pid " << old.pid << ", state " << up.state_path
                << ")\n";
      return kExitOk;
    }
    std::error_code ec;
    fs::remove(up.state_path, ec);
  } catch (const std::exception&) {
  }
  std::error_code ec;
  fs::create_directories(fs::path(up.state_path).parent_path(), ec);
  if (up.foreground) return RunSupervisor(up, -1);

  int fds[2];
  if (::pipe(fds) != 0) {
    std::cerr << "aftershock-cluster: pipe: " << std::strerror(errno) << "\n";
    return kExitFailed;
  }
  const auto t0 = Clock::now();
  // No thread exists yet (nothing has touched gRPC), so a plain fork is safe.
  const pid_t child = ::fork();
  if (child < 0) {
    std::cerr << "aftershock-cluster: fork: " << std::strerror(errno) << "\n";
    return kExitFailed;
  }
  if (child == 0) {
    ::close(fds[0]);
    ::setsid();
    const std::string log_path = up.state_path + ".log";
    const int null_fd = ::open("/dev/null", O_RDONLY);
    const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    if (log_fd >= 0) {
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
    }
    ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    const int code = RunSupervisor(up, fds[1]);
    std::cout.flush();
    std::cerr.flush();
    ::_exit(code);
  }
  ::close(fds[1]);
  std::string received;
  const auto deadline = t0 + kUpTimeout;
  while (received.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      std::cerr << "aftershock-cluster up: no steady state within " << kUpTimeout.count()
                << " min; stopping the supervisor (pid " << child << "); log " << up.state_path << ".log\n";
      ::kill(child, SIGTERM);
      return kExitFailed;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
    if (n <= 0) break;  // the supervisor closed the pipe (exited)
    received.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  const std::string line = received.substr(0, received.find('\n'));
  if (line.rfind("READY ", 0) == 0) {
    std::istringstream in(line.substr(6));
    std::string secs, store;
    in >> secs >> store;
    std::cout << "aftershock-cluster up: steady in " << secs << " s (supervisor pid " << child << ", store " << store
              << ", state " << up.state_path << ")\n";
    return kExitOk;
  }
  int status = 0;
  ::waitpid(child, &status, WNOHANG);
  if (line.rfind("ERROR ", 0) == 0) {
    std::string message = line.substr(6);
    for (char& c : message) {
      if (c == '|') c = '\n';
    }
    std::cerr << "aftershock-cluster up failed: " << message << "\n";
  } else {
    std::cerr << "aftershock-cluster up failed: the supervisor exited during bring-up; log " << up.state_path
              << ".log\n";
  }
  return kExitFailed;
}

}  // namespace aftershock::cluster::cli
