#include "framework/process/child_process.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>

extern char** environ;

namespace aftershock::process {
namespace {

using SteadyClock = std::chrono::steady_clock;

// What the child reports through the exec pipe when a step before (or at) execve fails.
enum class ChildStage : int {
  kSetProcessGroup = 1,
  kRedirectOutput,
  kSetGroups,
  kSetGid,
  kSetUid,
  kParentDeathSignal,
  kParentAlreadyGone,
  kChangeDirectory,
  kInheritDescriptor,
  kExec,
};

struct ChildFailure {
  int stage = 0;
  int error = 0;
};

const char* StageName(int stage) {
  switch (static_cast<ChildStage>(stage)) {
    case ChildStage::kSetProcessGroup: return "setpgid";
    case ChildStage::kRedirectOutput: return "redirecting stdout/stderr";
    case ChildStage::kSetGroups: return "setgroups";
    case ChildStage::kSetGid: return "setgid";
    case ChildStage::kSetUid: return "setuid";
    case ChildStage::kParentDeathSignal: return "prctl(PR_SET_PDEATHSIG)";
    case ChildStage::kParentAlreadyGone: return "parent exited before exec";
    case ChildStage::kChangeDirectory: return "chdir";
    case ChildStage::kInheritDescriptor: return "keeping an inherit_fds descriptor open across exec";
    case ChildStage::kExec: return "execve";
  }
  return "unknown step";
}

std::runtime_error StartError(const std::string& program, const std::string& what) {
  return std::runtime_error("cannot start '" + program + "': " + what);
}

std::string ErrnoText(int error) { return std::strerror(error); }

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Resolves a bare program name through PATH (in the parent: the child may not allocate).
std::string ResolveProgram(const std::string& program) {
  if (program.empty()) throw std::runtime_error("cannot start a child: ChildOptions::program is empty");
  if (program.find('/') != std::string::npos) return program;
  const char* path_env = std::getenv("PATH");
  const std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  while (begin <= path.size()) {
    std::size_t end = path.find(':', begin);
    if (end == std::string::npos) end = path.size();
    const std::string dir = end > begin ? path.substr(begin, end - begin) : ".";
    const std::string candidate = dir + "/" + program;
    if (IsExecutableFile(candidate)) return candidate;
    begin = end + 1;
  }
  throw StartError(program, "not found in PATH");
}

std::vector<std::string> BuildEnvironment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string item = *entry;
    const std::string key = item.substr(0, item.find('='));
    if (extra.count(key) == 0) env.push_back(item);
  }
  for (const auto& [key, value] : extra) env.push_back(key + "=" + value);
  return env;
}

std::vector<char*> PointerArray(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// Owns a file descriptor for the parent side of Start().
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  int get() const { return fd_; }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

[[noreturn]] void ChildFail(int pipe_fd, ChildStage stage) {
  const ChildFailure failure{static_cast<int>(stage), errno};
  ssize_t ignored = ::write(pipe_fd, &failure, sizeof(failure));
  (void)ignored;
  ::_exit(127);
}

// Runs in the forked child: only async-signal-safe calls from here on.
[[noreturn]] void RunChild(const ChildOptions& options, const char* path, char* const* argv, char* const* envp,
                           int log_fd, int pipe_fd, pid_t parent, int max_fd) {
  // Signal dispositions that the parent set to handlers are reset by exec anyway; the mask is
  // inherited, so clear it (a parent that blocks SIGTERM for sigwait must not pass that on).
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Ignored signals stay ignored across exec (test binaries often ignore SIGPIPE, a shell may
  // ignore SIGTERM or SIGCHLD): give the child the default disposition of every signal.
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  }

  if (options.new_process_group && ::setpgid(0, 0) != 0) ChildFail(pipe_fd, ChildStage::kSetProcessGroup);
  if (log_fd >= 0) {
    if (::dup2(log_fd, STDOUT_FILENO) < 0 || ::dup2(log_fd, STDERR_FILENO) < 0) {
      ChildFail(pipe_fd, ChildStage::kRedirectOutput);
    }
  }
  if (options.run_as_gid.has_value() || options.run_as_uid.has_value()) {
    if (::geteuid() == 0 && ::setgroups(0, nullptr) != 0) ChildFail(pipe_fd, ChildStage::kSetGroups);
  }
  if (options.run_as_gid.has_value() && ::setgid(*options.run_as_gid) != 0) {
    ChildFail(pipe_fd, ChildStage::kSetGid);
  }
  if (options.run_as_uid.has_value() && ::setuid(*options.run_as_uid) != 0) {
    ChildFail(pipe_fd, ChildStage::kSetUid);
  }
  // After the credential change: changing credentials clears the parent-death signal.
  if (options.die_with_parent) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) ChildFail(pipe_fd, ChildStage::kParentDeathSignal);
    if (::getppid() != parent) {
      errno = ESRCH;
      ChildFail(pipe_fd, ChildStage::kParentAlreadyGone);
    }
  }
  if (!options.working_dir.empty() && ::chdir(options.working_dir.c_str()) != 0) {
    ChildFail(pipe_fd, ChildStage::kChangeDirectory);
  }
  // Nothing of the parent's but stdin/out/err and inherit_fds crosses the exec (the exec-report
  // pipe is close-on-exec already, so a failed exec can still report).
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < max_fd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // kernels before 5.11
  }
  for (const int fd : options.inherit_fds) {
    if (::fcntl(fd, F_SETFD, 0) != 0) ChildFail(pipe_fd, ChildStage::kInheritDescriptor);
  }
  ::execve(path, argv, envp);
  ChildFail(pipe_fd, ChildStage::kExec);
}

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

ChildProcess ChildProcess::Start(const ChildOptions& options) {
  std::string path = ResolveProgram(options.program);
  std::vector<std::string> argv_strings;
  argv_strings.push_back(path);
  argv_strings.insert(argv_strings.end(), options.args.begin(), options.args.end());
  std::vector<std::string> env_strings = BuildEnvironment(options.extra_env);
  std::vector<char*> argv = PointerArray(argv_strings);
  std::vector<char*> envp = PointerArray(env_strings);

  Fd log_fd;
  if (!options.log_path.empty()) {
    log_fd.Reset(::open(options.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
    if (log_fd.get() < 0) {
      throw StartError(options.program, "cannot open log file '" + options.log_path + "': " + ErrnoText(errno));
    }
  }

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw StartError(options.program, "pipe2: " + ErrnoText(errno));
  Fd read_end(pipe_fds[0]);
  Fd write_end(pipe_fds[1]);

  const pid_t parent = ::getpid();
  const long open_max = ::sysconf(_SC_OPEN_MAX);
  const int max_fd = open_max > 0 && open_max < (1 << 20) ? static_cast<int>(open_max) : (1 << 20);
  const pid_t pid = ::fork();
  if (pid < 0) throw StartError(options.program, "fork: " + ErrnoText(errno));
  if (pid == 0) {
    RunChild(options, path.c_str(), argv.data(), envp.data(), log_fd.get(), write_end.get(), parent, max_fd);
  }
  // Both sides set the group so that a signal to the group right after Start() cannot miss it.
  if (options.new_process_group) ::setpgid(pid, pid);
  write_end.Close();
  log_fd.Close();

  ChildFailure failure;
  ssize_t n;
  do {
    n = ::read(read_end.get(), &failure, sizeof(failure));
  } while (n < 0 && errno == EINTR);

  ChildProcess child(pid, options.program, options.new_process_group);
  if (n == 0) return child;  // The pipe closed on a successful exec.

  child.Reap();  // The child has _exit()ed (or will at once): reap it before reporting.
  if (n == static_cast<ssize_t>(sizeof(failure))) {
    throw StartError(options.program, std::string(StageName(failure.stage)) + " failed: " + ErrnoText(failure.error));
  }
  throw StartError(options.program, "lost contact with the child before exec");
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      program_(std::move(other.program_)),
      own_group_(other.own_group_),
      exit_code_(std::exchange(other.exit_code_, std::nullopt)) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0 && !Reaped()) {
      try {
        Stop();
      } catch (...) {
      }
    }
    pid_ = std::exchange(other.pid_, -1);
    program_ = std::move(other.program_);
    own_group_ = other.own_group_;
    exit_code_ = std::exchange(other.exit_code_, std::nullopt);
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !Reaped()) {
    try {
      Stop();
    } catch (...) {
      // A destructor must not throw; Stop() already escalated to SIGKILL.
    }
  }
}

bool ChildProcess::Running() { return pid_ > 0 && !TryWait().has_value(); }

std::optional<int> ChildProcess::TryWait() {
  if (pid_ <= 0 || Reaped()) return exit_code_;
  if (ExitedWithoutReaping()) Reap();
  return exit_code_;
}

int ChildProcess::Wait(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) throw std::runtime_error("Wait() on an empty ChildProcess handle");
  if (Reaped()) return *exit_code_;
  if (!AwaitExit(SteadyClock::now() + timeout)) {
    throw std::runtime_error("child '" + program_ + "' (pid " + std::to_string(pid_) + ") still running after " +
                             std::to_string(timeout.count()) + " ms");
  }
  return Reap();
}

void ChildProcess::Signal(int sig) {
  if (pid_ > 0 && !Reaped()) ::kill(pid_, sig);
}

int ChildProcess::Stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return -1;
  if (Reaped()) return *exit_code_;
  SignalTree(SIGTERM);
  if (!AwaitExit(SteadyClock::now() + grace)) {
    SignalTree(SIGKILL);
    if (!AwaitExit(SteadyClock::now() + std::chrono::seconds(30))) {
      throw std::runtime_error("child '" + program_ + "' (pid " + std::to_string(pid_) +
                               ") did not die within 30 s of SIGKILL");
    }
  }
  return Reap();
}

bool ChildProcess::ExitedWithoutReaping() {
  siginfo_t info;
  std::memset(&info, 0, sizeof(info));
  int r;
  do {
    r = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  if (r < 0) return true;  // ECHILD: nothing left to wait for.
  return info.si_pid == pid_;
}

int ChildProcess::Reap() {
  if (Reaped()) return *exit_code_;
  // Called once the leader has exited: as a zombie it still owns its group id, so this cannot hit
  // an unrelated group. What the child left running in its group goes with it.
  if (own_group_) ::kill(-pid_, SIGKILL);
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  exit_code_ = r == pid_ ? ExitCodeOf(status) : -1;
  return *exit_code_;
}

void ChildProcess::SignalTree(int sig) {
  if (pid_ <= 0 || Reaped()) return;
  if (own_group_) ::kill(-pid_, sig);
  ::kill(pid_, sig);
}

bool ChildProcess::AwaitExit(SteadyClock::time_point deadline) {
  auto pause = std::chrono::milliseconds(1);
  // Bounded by the deadline; the pause grows so a long wait does not spin.
  while (true) {
    if (ExitedWithoutReaping()) return true;
    const auto now = SteadyClock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(std::min<SteadyClock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

}  // namespace aftershock::process
