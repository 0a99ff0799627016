#include "config/report_target.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "common/report_path.hpp"
#include "config/display.hpp"

namespace harmonize::config {
namespace {

// The report (or its numbered sibling, or the temporary it is written
// through) will be created in `directory`: try it now.
std::string probe_directory(const std::string& directory, const std::string& probe_name) {
  struct stat status {};
  if (::stat(directory.c_str(), &status) != 0) {
    if (errno == ENOENT) return "directory " + display_value(directory) + " does not exist";
    return "cannot access " + display_value(directory) + ": " + std::strerror(errno);
  }
  if (!S_ISDIR(status.st_mode)) return display_value(directory) + " is not a directory";
  for (int attempt = 0; attempt < 10; ++attempt) {
    const std::string probe = directory + "/" + probe_name +
                              (attempt == 0 ? std::string() : "-" + std::to_string(attempt));
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) continue;  // a leftover of a killed job: not ours to remove
    if (fd < 0)
      return "cannot create a file in " + display_value(directory) + ": " + std::strerror(errno);
    ::close(fd);
    ::unlink(probe.c_str());
    return {};
  }
  return "cannot find a free probe name in " + display_value(directory);
}

// Devices, pipes and descriptors are written as they are: can we open them?
std::string probe_as_is(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0 && errno == ENXIO) return "it is a FIFO with no reader";
  if (fd < 0) return "cannot open it for writing: " + std::string(std::strerror(errno));
  ::close(fd);
  return {};
}

}  // namespace

std::string report_target_problem(const std::string& path, const std::string& probe_name) {
  if (path.empty()) return "it names no file";
  if (path.back() == '/') return "it ends with '/'; expected a file name";
  if (names_open_descriptor(path)) return probe_as_is(path);
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) {
    if (errno == ENOENT) return probe_directory(report_directory_of(path), probe_name);
    if (errno == ENOTDIR) return display_value(report_directory_of(path)) + " is not a directory";
    return "cannot access " + display_value(path) + ": " + std::strerror(errno);
  }
  if (S_ISDIR(status.st_mode)) return "it is a directory; expected a file name";
  if (S_ISREG(status.st_mode)) return probe_directory(report_directory_of(path), probe_name);
  if (S_ISCHR(status.st_mode)) return probe_as_is(path);
  // Never opened here: a reader that sees its only writer close takes that
  // as the end of the report and goes. Whether one reads at MPI_Finalize is
  // that moment's business.
  if (S_ISFIFO(status.st_mode) && ::access(path.c_str(), W_OK) != 0)
    return "cannot write to the FIFO: " + std::string(std::strerror(errno));
  if (S_ISFIFO(status.st_mode)) return {};
  return "it is not a regular file, a character device or a pipe";
}

std::string archive_target_problem(const std::string& path, const std::string& probe_name) {
  std::string name = path;
  while (name.size() > 1 && name.back() == '/') name.pop_back();
  if (name.empty()) return "it names no directory";
  if (names_open_descriptor(name)) return "an OTF2 archive is a directory; expected a name for one";
  struct stat status {};
  if (::stat(name.c_str(), &status) == 0 && !S_ISDIR(status.st_mode) && !S_ISREG(status.st_mode))
    return "an OTF2 archive is a directory; expected a name for one";
  // Taken already: the archive goes beside it under a fresh name.
  return probe_directory(report_directory_of(name), probe_name);
}

void check_report_target(PolicyResult& result) {
  const Policy& policy = result.policy;
  if (policy.mode == Mode::off) return;
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  const std::string pid = std::to_string(::getpid());
  const std::string probe = ".harmonize-probe-" + std::string(host) + "-" + pid;
  // The report and the timeline: rank 0 writes both, by the same rules.
  for (const auto& [name, value] :
       {std::pair<const char*, const std::string&>{"HARMONIZE_REPORT", policy.report},
        {"HARMONIZE_TRACE", policy.trace}}) {
    if (value == "none") continue;
    const std::string path = expand_report_path(value, report_job_id(::getpid()), host);
    const bool archive = &value == &policy.trace && policy.trace_format == TraceFormat::otf2;
    const std::string problem =
        archive ? archive_target_problem(path, probe) : report_target_problem(path, probe);
    if (!problem.empty())
      result.errors.push_back(std::string(name) + "='" + display_value(value) +
                              "' is not valid: " + problem);
  }
}

}  // namespace harmonize::config
