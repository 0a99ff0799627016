#pragma once
// What the benchmark drivers share: running an MPI job as a child process
// and capturing its output, knowing which launcher it is, and handing the
// preload to the ranks (not to the launcher itself).
#include <optional>
#include <string>
#include <vector>

namespace harmonize::tools {

enum class Flavor { openmpi, mpich, unknown };

struct Captured {
  int status = -1;  // exit status, or -1 if it could not run
  std::string output;
};

// Runs argv with the given environment, returning its stdout (stderr passes through).
Captured run_capture(const std::vector<std::string>& args, const std::vector<std::string>& env);

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
std::string joined(const std::vector<std::string>& args);

}  // namespace harmonize::tools
