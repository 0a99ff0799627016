#include "tools/common/launch.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace harmonize::tools {

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
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
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
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
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

std::string joined(const std::vector<std::string>& args) {
  std::string text;
  for (const auto& a : args) text += (text.empty() ? "" : " ") + a;
  return text;
}

}  // namespace harmonize::tools
