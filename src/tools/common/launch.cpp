#include "tools/common/launch.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

extern char** environ;

namespace harmonize::tools {

namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The children a stop signal must not leave behind, where its handler can
// read them: fixed slots of lock-free atomics, nothing allocated.
struct Tracked {
  std::atomic<pid_t> pid{0};
  std::atomic<int> stop_with{0};  // the signal to send; 0: the one the driver got
};
static_assert(std::atomic<pid_t>::is_always_lock_free && std::atomic<int>::is_always_lock_free);
constexpr std::size_t kMaxTracked = 128;
Tracked tracked[kMaxTracked];

// The paths to remove on a stop signal, in the same spirit.
constexpr std::size_t kMaxPaths = 8;
char removed_paths[kMaxPaths][4096];
std::atomic<bool> path_used[kMaxPaths];

bool track(pid_t pid, int stop_with) {
  for (Tracked& slot : tracked) {
    if (slot.pid.load() != 0) continue;
    slot.stop_with.store(stop_with);  // before the pid: the handler reads it second
    slot.pid.store(pid);
    return true;
  }
  return false;
}

void untrack(pid_t pid) {
  for (Tracked& slot : tracked) {
    if (slot.pid.load() == pid) slot.pid.store(0);
  }
}

// Waits for a tracked child to end and reaps it, untracking it in between
// (waitid leaves it a zombie): the handler never misses a child that still
// runs, and never signals a pid that was reaped and may have been reused.
int reap_tracked(pid_t pid) {
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  untrack(pid);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// In a signal handler: waits up to about 5 s for the child to stop by itself
// (a launcher stopping its ranks), then kills it.
void reap_in_handler(pid_t pid) {
  for (int i = 0; i < 500; ++i) {
    const pid_t done = waitpid(pid, nullptr, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) return;
    timespec pause{0, 10'000'000};
    nanosleep(&pause, nullptr);
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

// Async-signal-safe only: lock-free atomics, kill, waitpid, nanosleep, unlink,
// rmdir, signal, raise.
void stop_children(int signal_number) {
  for (Tracked& slot : tracked) {
    const pid_t pid = slot.pid.load();
    const int stop_with = slot.stop_with.load();
    if (pid > 0) kill(pid, stop_with != 0 ? stop_with : signal_number);
  }
  for (Tracked& slot : tracked) {
    const pid_t pid = slot.pid.exchange(0);
    if (pid > 0) reap_in_handler(pid);
  }
  for (std::size_t i = 0; i < kMaxPaths; ++i) {
    if (path_used[i].load() && unlink(removed_paths[i]) != 0) rmdir(removed_paths[i]);
  }
  // With the default restored, the signal (pending until the handler returns)
  // ends the driver as it would have without the handler: same exit status.
  std::signal(signal_number, SIG_DFL);
  raise(signal_number);
}

// Holds the stop signals off for a scope: a child forked or spawned in it is
// tracked before the handler can run.
class StopSignalsHeld {
 public:
  StopSignalsHeld() {
    sigset_t stop;
    sigemptyset(&stop);
    for (const int s : kStopSignals) sigaddset(&stop, s);
    sigprocmask(SIG_BLOCK, &stop, &previous_);
  }
  ~StopSignalsHeld() { sigprocmask(SIG_SETMASK, &previous_, nullptr); }
  StopSignalsHeld(const StopSignalsHeld&) = delete;
  StopSignalsHeld& operator=(const StopSignalsHeld&) = delete;

  // The mask outside the scope: what a child must run with.
  const sigset_t& previous() const { return previous_; }

 private:
  sigset_t previous_{};
};

// A hog's life: the driver's handler is not for it (it would stop its
// siblings), and it must not outlive the driver even if that is SIGKILLed.
[[noreturn]] void spin(pid_t driver, const sigset_t& mask) {
  for (const int s : kStopSignals) {
    struct sigaction current {};
    if (sigaction(s, nullptr, &current) == 0 && current.sa_handler == stop_children)
      std::signal(s, SIG_DFL);
  }
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_NAME, "harmonize-hog");  // top and ps -o comm tell it from the driver
#endif
  if (getppid() != driver) _exit(0);  // the driver died before the line above
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  // Volatile: a loop without side effects may be assumed to end.
  volatile unsigned long turns = 0;
  for (;;) turns = turns + 1;
}

}  // namespace

void stop_children_on_signals() {
  struct sigaction action {};
  action.sa_handler = stop_children;
  sigemptyset(&action.sa_mask);
  // One stop at a time; a second signal waits for it (at most ~5 s a job) and
  // then, the handler being reset, ends the driver.
  for (const int s : kStopSignals) sigaddset(&action.sa_mask, s);
  action.sa_flags = SA_RESETHAND;
  for (const int s : kStopSignals) {
    struct sigaction previous {};
    if (sigaction(s, nullptr, &previous) == 0 && previous.sa_handler != SIG_IGN)
      sigaction(s, &action, nullptr);
  }
}

void remove_on_stop(const std::string& path) {
  if (path.size() >= sizeof removed_paths[0]) return;
  const StopSignalsHeld held;  // the handler never reads a half-written path
  for (std::size_t i = 0; i < kMaxPaths; ++i) {
    if (path_used[i].load()) continue;
    std::memcpy(removed_paths[i], path.c_str(), path.size() + 1);
    path_used[i].store(true);
    return;
  }
}

void keep_on_stop(const std::string& path) {
  for (std::size_t i = 0; i < kMaxPaths; ++i) {
    if (path_used[i].load() && path == removed_paths[i]) path_used[i].store(false);
  }
}

CpuHogs::CpuHogs(int count) {
  pids_.reserve(static_cast<std::size_t>(std::max(count, 0)));
  const pid_t driver = getpid();
  for (int i = 0; i < count; ++i) {
    const StopSignalsHeld held;
    const pid_t pid = fork();
    if (pid == 0) spin(driver, held.previous());
    if (pid < 0) break;
    if (!track(pid, SIGKILL)) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      break;
    }
    pids_.push_back(pid);
  }
}

CpuHogs::~CpuHogs() {
  for (const pid_t pid : pids_) kill(pid, SIGKILL);
  for (const pid_t pid : pids_) reap_tracked(pid);
}

Captured run_capture(const std::vector<std::string>& args, const std::vector<std::string>& env) {
  Captured result;
  int fds[2];
  if (pipe(fds) != 0) return result;
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  pid_t pid = 0;
  int spawned = 0;
  {
    const StopSignalsHeld held;  // until the child is tracked; it runs with the usual mask
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setsigmask(&attributes, &held.previous());
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK);
    spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
    posix_spawnattr_destroy(&attributes);
    if (spawned == 0) track(pid, 0);
  }
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    std::fprintf(stderr, "cannot run %s: %s\n", argv[0], std::strerror(spawned));
    return result;
  }
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) result.output.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  const int status = reap_tracked(pid);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::vector<std::string> current_environment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

std::vector<std::string> clean_environment() {
  std::vector<std::string> env;
  for (std::string& entry : current_environment()) {
    if (entry.starts_with("LD_PRELOAD=") || entry.starts_with("HARMONIZE_")) continue;
    env.push_back(std::move(entry));
  }
  return env;
}

Flavor detect_flavor(const std::string& mpiexec) {
  const Captured version = run_capture({mpiexec, "--version"}, current_environment());
  if (version.output.find("Open MPI") != std::string::npos ||
      version.output.find("OpenRTE") != std::string::npos) {
    return Flavor::openmpi;
  }
  if (version.output.find("HYDRA") != std::string::npos) return Flavor::mpich;
  return Flavor::unknown;
}

std::vector<std::string> launch_command(const std::string& mpiexec, Flavor flavor, int ranks,
                                        const std::vector<std::string>& launcher_args,
                                        const std::vector<std::string>& rank_environment) {
  std::vector<std::string> args{mpiexec, "-n", std::to_string(ranks)};
  if (flavor == Flavor::openmpi) args.insert(args.end(), {"--oversubscribe", "--bind-to", "none"});
  args.insert(args.end(), launcher_args.begin(), launcher_args.end());
  for (const std::string& assignment : rank_environment) {
    if (flavor == Flavor::openmpi) {
      args.insert(args.end(), {"-x", assignment});
    } else {
      const auto equals = assignment.find('=');
      args.insert(args.end(),
                  {"-genv", assignment.substr(0, equals), assignment.substr(equals + 1)});
    }
  }
  return args;
}

double monotonic_seconds() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2.0;
}

std::string executable_path() {
  std::string path(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size() - 1);
  path.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return path;
}

std::string default_library(const std::string& executable) {
  const auto slash = executable.rfind('/');
  const std::string bin = slash == std::string::npos ? "." : executable.substr(0, slash);
  return bin + "/../lib/libharmonize.so";
}

std::optional<long> parse_positive(const char* text) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 1) return std::nullopt;
  return value;
}

std::string each_option(int argc, char** argv, bool& help,
                        const std::function<std::string(std::string_view, const char*)>& take) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "-h" || flag == "--help") {
      help = true;
      continue;
    }
    if (i + 1 >= argc) return "option " + std::string(flag) + " needs a value (or is unknown)";
    if (std::string why = take(flag, argv[++i]); !why.empty()) return why;
  }
  return {};
}

std::optional<long> parse_count(const char* text) {
  if (std::string_view(text) == "0") return 0;
  return parse_positive(text);
}

std::string joined(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& a : args) text += (text.empty() ? "" : " ") + a;
  return text;
}

std::string shell_joined(const std::vector<std::string>& args) {
  constexpr std::string_view kPlain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:%@";
  std::vector<std::string> words;
  for (const std::string& arg : args) {
    if (!arg.empty() && arg.find_first_not_of(kPlain) == std::string::npos) {
      words.push_back(arg);
      continue;
    }
    std::string quoted = "'";
    for (const char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    words.push_back(quoted + "'");
  }
  return joined(words);
}

}  // namespace harmonize::tools
