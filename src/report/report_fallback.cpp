#include "report/report_fallback.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace harmonize::report {
namespace {

// One directory under two names ("." and the working directory's path):
// trying it again would only fail again, and say so twice.
bool same_directory(const std::string& a, const std::string& b) {
  struct stat first {
  }, second{};
  if (::stat(a.c_str(), &first) != 0 || ::stat(b.c_str(), &second) != 0) return a == b;
  return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
}

}  // namespace

std::string fallback_name(const std::string& path, std::string_view job_id) {
  struct stat status {};
  const bool special = names_open_descriptor(path) ||
                       (::stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode));
  const auto slash = path.rfind('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (special || name.empty()) return "harmonize-" + std::string(job_id) + ".json";
  return name;
}

std::vector<std::string> fallback_directories(const std::string& working_directory,
                                              const char* tmpdir) {
  std::vector<std::string> directories;
  directories.push_back(working_directory.empty() ? "." : working_directory);
  directories.push_back(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp");
  return directories;
}

SavedReport save_somewhere(const std::string& path, const std::string& name,
                           const std::vector<std::string>& directories, bool skip_own_directory,
                           const Writer& write) {
  SavedReport saved;
  saved.requested = path;
  saved.written = write(path);
  if (saved.written.error.empty()) return saved;
  saved.error = saved.written.error;
  saved.written = {};
  for (const std::string& directory : directories) {
    if (skip_own_directory && same_directory(directory, report_directory_of(path))) continue;
    const std::string candidate = (directory.back() == '/' ? directory : directory + "/") + name;
    WrittenReport attempt = write(candidate);
    if (attempt.error.empty()) {
      saved.written = std::move(attempt);
      saved.fell_back = true;
      return saved;
    }
    saved.fallback_errors.push_back(candidate + ": " + attempt.error);
  }
  return saved;
}

SavedReport save_report(const std::string& path, std::string_view text, const std::string& name,
                        const std::vector<std::string>& directories) {
  struct stat status {};
  // A device or a pipe lives in /dev or anywhere: its directory is no
  // reason to skip a fallback there.
  const bool regular_target = !names_open_descriptor(path) &&
                              !(::stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode));
  return save_somewhere(path, name, directories, regular_target, [text](const std::string& where) {
    return write_report_file(where, text);
  });
}

std::vector<std::string> fallback_places() {
  char directory[4096];
  const std::string working =
      ::getcwd(directory, sizeof directory) != nullptr ? std::string(directory) : ".";
  return fallback_directories(working, std::getenv("TMPDIR"));
}

std::string save_problem(const SavedReport& saved, std::string_view what) {
  if (saved.error.empty()) return {};
  const std::string the = "the " + std::string(what);
  std::string line = "error: cannot write " + the + " to " + saved.requested + ": " + saved.error;
  if (saved.fell_back) return line + "; written to " + saved.written.final_path + " instead";
  for (const std::string& failed : saved.fallback_errors) line += "; nor to " + failed;
  return line + "; " + the + " " + saved.requested +
         " is lost (its content was not written anywhere)";
}

SavedReport save_with_fallbacks(const std::string& path, std::string_view text,
                                std::string_view job_id) {
  return save_report(path, text, fallback_name(path, job_id), fallback_places());
}

}  // namespace harmonize::report
