#include "report/report_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace harmonize::report {

namespace {

constexpr unsigned kMaxNumberedNames = 10000;

std::string errno_text(int error) {
  return std::strerror(error);
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

// Creates a uniquely named temporary file holding `text`; its path, or "" and
// `error` set. Not mkstemp: its 0600 mode would need a umask() round trip to
// fix, and umask() is process-wide state another thread may be using.
std::string write_temporary(const std::string& path, std::string_view text, std::string& error) {
  const std::string prefix =
      report_directory_of(path) + "/.harmonize-report-" + std::to_string(::getpid()) + "-";
  const auto salt = std::chrono::steady_clock::now().time_since_epoch().count();
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string temporary = prefix + std::to_string(salt + attempt) + ".tmp";
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) {
      error = "cannot create a temporary file in " + report_directory_of(path) + ": " +
              errno_text(errno);
      return {};
    }
    const bool written = write_all(fd, text);
    const int write_error = errno;
    if (::close(fd) != 0 || !written) {
      error = "cannot write " + temporary + ": " + errno_text(written ? errno : write_error);
      ::unlink(temporary.c_str());
      return {};
    }
    return temporary;
  }
  error = "cannot find a free temporary name in " + report_directory_of(path);
  return {};
}

enum class Placed { ok, exists, unsupported, failed };

Placed place_by_link(const std::string& temporary, const std::string& target) {
  if (::link(temporary.c_str(), target.c_str()) == 0) return Placed::ok;
  if (errno == EEXIST) return Placed::exists;
  if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == ENOSYS ||
      errno == EMLINK) {
    return Placed::unsupported;
  }
  return Placed::failed;
}

Placed place_by_reservation(const std::string& temporary, const std::string& target) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return errno == EEXIST ? Placed::exists : Placed::failed;
  ::close(fd);
  // The reservation is ours, so replacing it overwrites nothing of anyone else.
  if (::rename(temporary.c_str(), target.c_str()) == 0) return Placed::ok;
  const int error = errno;
  ::unlink(target.c_str());
  errno = error;
  return Placed::failed;
}

// Devices, pipes and descriptors: no temporary, no numbered name. O_NONBLOCK
// makes a FIFO without reader an error (ENXIO) rather than a hang at
// MPI_Finalize; O_APPEND keeps what a redirected stdout already holds.
std::string write_as_is(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return errno == ENXIO ? "a FIFO with no reader" : errno_text(errno);
  struct stat status {};
  if (::fstat(fd, &status) == 0 && !S_ISREG(status.st_mode) && !S_ISCHR(status.st_mode) &&
      !S_ISFIFO(status.st_mode)) {
    ::close(fd);
    return "not a regular file, a character device or a pipe";
  }
  // Blocking again: a slow reader must not make the write fail half-way.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  const bool written = write_all(fd, text);
  const int write_error = errno;
  if (::close(fd) != 0 && written) return errno_text(errno);
  return written ? std::string() : errno_text(write_error);
}

}  // namespace

std::string numbered_path(std::string_view path, unsigned number) {
  if (number == 0) return std::string(path);
  const auto slash = path.rfind('/');
  const std::size_t name_start = slash == std::string_view::npos ? 0 : slash + 1;
  auto dot = path.rfind('.');
  // A leading dot (".report") names a hidden file, it is not an extension.
  if (dot == std::string_view::npos || dot <= name_start) dot = path.size();
  return std::string(path.substr(0, dot)) + "-" + std::to_string(number) +
         std::string(path.substr(dot));
}

WrittenReport write_report_file(const std::string& path, std::string_view text) {
  WrittenReport result;
  if (path.empty() || path.back() == '/') {
    result.error = "report path '" + path + "' does not name a file";
    return result;
  }
  struct stat status {};
  const bool exists = ::stat(path.c_str(), &status) == 0;
  if (names_open_descriptor(path) || (exists && !S_ISREG(status.st_mode))) {
    if (exists && S_ISDIR(status.st_mode)) {
      result.error = path + " is a directory";
    } else if (exists && (S_ISBLK(status.st_mode) || S_ISSOCK(status.st_mode))) {
      result.error = path + " is not a regular file, a character device or a pipe";
    } else if (std::string why = write_as_is(path, text); !why.empty()) {
      result.error = "cannot write " + path + ": " + why;
    } else {
      result.final_path = path;
    }
    return result;
  }
  const std::string temporary = write_temporary(path, text, result.error);
  if (temporary.empty()) return result;

  bool use_link = true;
  bool temporary_renamed = false;
  for (unsigned number = 0; number < kMaxNumberedNames; ++number) {
    const std::string target = numbered_path(path, number);
    Placed placed = use_link ? place_by_link(temporary, target) : Placed::unsupported;
    if (placed == Placed::unsupported) {
      use_link = false;
      placed = place_by_reservation(temporary, target);
    }
    if (placed == Placed::exists) continue;
    if (placed == Placed::failed) {
      result.error = "cannot create " + target + ": " + errno_text(errno);
      break;
    }
    temporary_renamed = !use_link;
    result.final_path = target;
    result.renamed_because_exists = number > 0;
    break;
  }
  if (result.final_path.empty() && result.error.empty()) {
    result.error = "no free name for " + path + " (tried " + std::to_string(kMaxNumberedNames) +
                   " numbered names)";
  }
  // After link() the temporary is a second name of the report (or, on error,
  // the only one of a report nobody will read).
  if (!temporary_renamed) ::unlink(temporary.c_str());
  return result;
}

}  // namespace harmonize::report
