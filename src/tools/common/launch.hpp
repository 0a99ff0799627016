#pragma once
// What the benchmark drivers share: running an MPI job as a child process
// and capturing its output, knowing which launcher it is, and handing the
// preload to the ranks (not to the launcher itself).
#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harmonize::tools {

enum class Flavor { openmpi, mpich, unknown };

struct Captured {
  int status = -1;  // exit status, or -1 if it could not run
  std::string output;
};

// Runs argv with the given environment, returning its stdout (stderr passes through).
Captured run_capture(const std::vector<std::string>& args, const std::vector<std::string>& env);

// No child may outlive the driver: from now on SIGINT, SIGTERM and SIGHUP make
// it stop the children still running (jobs of run_capture get the same signal,
// so that the launcher stops its ranks; CPU hogs are killed), reap them, and
// then die of the signal. A signal the caller ignored (nohup) stays ignored.
void stop_children_on_signals();
// A file or empty directory those signals remove too (after the children have
// stopped, in the order given): what the driver would have removed on return.
void remove_on_stop(const std::string& path);
void keep_on_stop(const std::string& path);

// COUNT processes spinning on the CPU (like `yes > /dev/null`) for as long as
// the object lives: load beside the ranks, to see how a barrier copes with it.
// Killed and reaped on destruction, on the signals above, and (Linux) when the
// driver dies in any other way.
class CpuHogs {
 public:
  explicit CpuHogs(int count);
  ~CpuHogs();
  CpuHogs(const CpuHogs&) = delete;
  CpuHogs& operator=(const CpuHogs&) = delete;

  // Fewer than asked if fork failed.
  int running() const { return static_cast<int>(pids_.size()); }

 private:
  std::vector<pid_t> pids_;
};

std::vector<std::string> current_environment();
// The caller's environment without LD_PRELOAD and HARMONIZE_*: what is
// measured must not depend on what the caller happened to export.
std::vector<std::string> clean_environment();

Flavor detect_flavor(const std::string& mpiexec);

// mpiexec -n RANKS [--oversubscribe] [transport] [preload and variables for the ranks]
std::vector<std::string> launch_command(const std::string& mpiexec, Flavor flavor, int ranks,
                                        const std::vector<std::string>& launcher_args,
                                        const std::vector<std::string>& rank_environment);

// CLOCK_MONOTONIC in seconds: what every process of one machine shares.
double monotonic_seconds();

std::optional<double> median(std::vector<double> values);
std::string executable_path();
// ../lib/libharmonize.so next to the directory of `executable`.
std::string default_library(const std::string& executable);
std::optional<long> parse_positive(const char* text);
// A driver's command line: -h/--help sets `help`, every other option is a
// "--flag value" pair handed to `take`, which says why it is wrong ("" if
// right). The first complaint, or "".
std::string each_option(
    int argc, char** argv, bool& help,
    const std::function<std::string(std::string_view flag, const char* value)>& take);
// Like parse_positive, but 0 too.
std::optional<long> parse_count(const char* text);
std::string joined(const std::vector<std::string>& args);
// Joined, each word quoted for a POSIX shell where it needs to be: a line the
// user can paste back.
std::string shell_joined(const std::vector<std::string>& args);

}  // namespace harmonize::tools
