#include "tools/cluster/supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

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
// The bounded stop: calls still running this long after the stop began are cancelled; the cluster
// is stopped under the ones that still have not returned (its waits give up), and the supervisor
// exits without them after the second ceiling.
constexpr auto kCancelCallsAfter = std::chrono::seconds(2);
constexpr auto kCallsBeforeClusterStop = std::chrono::seconds(5);
constexpr auto kCallsAfterClusterStop = std::chrono::seconds(30);

// Writes `pid` as the lock file's content (who holds the lock, for a refused second `up`).
void WriteLockHolder(int fd, pid_t pid) {
  const std::string text = std::to_string(pid) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
    std::cerr << "[supervisor] warning: cannot record pid " << pid << " in the lock file: " << std::strerror(errno)
              << "\n";
  }
}

pid_t ReadLockHolder(const std::string& lock_path) {
  std::ifstream in(lock_path);
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

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
  options.janitor_log_path = up.state_path + ".janitor.log";
  // The janitor appends to its log (its history across runs); created private, never through a symlink.
  const int janitor_log =
      ::open(options.janitor_log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (janitor_log >= 0) {
    ::fchmod(janitor_log, 0600);
    ::close(janitor_log);
  }
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
    cluster->RemoveAfterCrash(socket_path);
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
    cluster->RemoveAfterCrash(up.state_path);
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
  // Bounded: the server stops on a thread of its own (it returns once every handler has); a
  // handler blocked in the cluster returns when the cluster stops.
  std::promise<void> served;
  std::future<void> served_done = served.get_future();
  std::thread server_stop([&] {
    server->Shutdown(std::chrono::system_clock::now() + kCancelCallsAfter);
    served.set_value();
  });
  if (served_done.wait_for(kCallsBeforeClusterStop) != std::future_status::ready) {
    std::cerr << "[supervisor] control calls still running " << kCallsBeforeClusterStop.count()
              << " s after the stop began (cancelled after " << kCancelCallsAfter.count()
              << " s); stopping the cluster under them\n";
  }
  cluster->Stop();
  if (served_done.wait_for(kCallsAfterClusterStop) != std::future_status::ready) {
    std::cerr << "[supervisor] control calls still running " << kCallsAfterClusterStop.count()
              << " s after the cluster stopped; exiting without them\n";
    std::error_code ec;
    fs::remove(socket_path, ec);
    std::cerr.flush();
    ::_exit(kExitFailed);
  }
  server_stop.join();
  server.reset();
  cluster.reset();
  std::cerr << "[supervisor] stopped\n";
  return kExitOk;
}

}  // namespace

int RunUp(const UpOptions& up) {
  // The private folder of the state, its log, its lock and the control socket.
  const std::string dir = fs::path(up.state_path).parent_path().string();
  try {
    internal::PrepareStateDir(dir);
  } catch (const std::exception& e) {
    std::cerr << "aftershock-cluster up: " << e.what() << "\n";
    return kExitFailed;
  }
  // One supervisor per state file: an exclusive lock beside it, held by the supervisor for its
  // whole life (inherited across the fork below, closed on exec, so no child holds it).
  const std::string lock_path = up.state_path + ".lock";
  const int lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (lock_fd < 0) {
    std::cerr << "aftershock-cluster up: cannot open the lock file " << lock_path << ": " << std::strerror(errno)
              << "\n";
    return kExitFailed;
  }
  std::optional<internal::ClusterStateFile> old;
  try {
    old = internal::ReadStateFile(up.state_path);
  } catch (const std::exception&) {
  }
  if (::flock(lock_fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const pid_t holder = ReadLockHolder(lock_path);
    ::close(lock_fd);
    if (error != EWOULDBLOCK) {
      std::cerr << "aftershock-cluster up: cannot lock " << lock_path << ": " << std::strerror(error) << "\n";
      return kExitFailed;
    }
    if (old && old->pid == holder && ProcessAlive(holder)) {
      std::cout << "aftershock-cluster: already up (supervisor pid " << holder << ", state " << up.state_path << ")\n";
      return kExitOk;
    }
    std::cerr << "aftershock-cluster up: refusing: the state " << up.state_path << " is locked by pid " << holder
              << " (" << lock_path << "): another `up` is bringing a cluster up on it, or its supervisor is still "
              << "running or stopping; wait for it, stop it (aftershock-cluster down --state=" << up.state_path
              << "), or use another --state\n";
    return kExitFailed;
  }
  if (old && ProcessAlive(old->pid)) {
    // A supervisor that took no lock (an older binary) is still running on this state.
    ::close(lock_fd);
    std::cout << "aftershock-cluster: already up (supervisor pid " << old->pid << ", state " << up.state_path << ")\n";
    return kExitOk;
  }
  std::error_code ec;
  fs::remove(up.state_path, ec);  // stale: we hold the lock, so no supervisor runs on it
  WriteLockHolder(lock_fd, ::getpid());
  // The last run's log is kept as .log.1; CollectArtifacts must never take it for this run's.
  const std::string log_path = up.state_path + ".log";
  ::rename(log_path.c_str(), (log_path + ".1").c_str());
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
    WriteLockHolder(lock_fd, ::getpid());
    // A fresh log, created exclusively and never through a symlink.
    const int null_fd = ::open("/dev/null", O_RDONLY);
    const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (log_fd < 0) {
      Notify(fds[1], "ERROR cannot create the supervisor log " + log_path + ": " + std::strerror(errno));
      ::_exit(kExitFailed);
    }
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    const int code = RunSupervisor(up, fds[1]);
    std::cout.flush();
    std::cerr.flush();
    ::_exit(code);
  }
  ::close(fds[1]);
  ::close(lock_fd);  // the supervisor holds the lock from here on
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
