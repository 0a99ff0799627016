#pragma once
// Where the report goes: the HARMONIZE_REPORT template, and a write that never
// overwrites an existing file and never leaves a half-written one.

#include <cstdlib>
#include <string>
#include <string_view>

namespace harmonize::report {

// The small rules below are inline because the config layer applies them too
// when it checks HARMONIZE_REPORT at MPI_Init, and the two layers do not link
// each other (DESIGN.md: dependencies point one way).

// %j -> job_id, %h -> host, %% -> %. Any other "%x" (and a trailing "%") is
// kept literally so a typo shows up in the file name instead of vanishing.
// The value "none" (no file) is the caller's business.
inline std::string expand_report_path(std::string_view path_template, std::string_view job_id,
                                      std::string_view host) {
  std::string out;
  out.reserve(path_template.size() + job_id.size());
  for (std::size_t i = 0; i < path_template.size(); ++i) {
    const char c = path_template[i];
    if (c != '%' || i + 1 == path_template.size()) {
      out += c;
      continue;
    }
    switch (path_template[i + 1]) {
      case 'j':
        out += job_id;
        break;
      case 'h':
        out += host;
        break;
      case '%':
        out += '%';
        break;
      default:
        out += c;
        continue;  // keep the next character for the next round
    }
    ++i;
  }
  return out;
}

// What %j stands for: the batch system's job id, else the pid of rank 0.
inline std::string report_job_id(int rank_zero_pid) {
  for (const char* name : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID", "JOB_ID"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return value;
  }
  return std::to_string(rank_zero_pid);
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: a descriptor the
// process already has. It may be a regular file (stdout redirected), which
// must be appended to, never numbered ("/dev/stdout-1") nor overwritten.
inline bool names_open_descriptor(std::string_view path) {
  return path == "/dev/stdout" || path == "/dev/stderr" || path.rfind("/dev/fd/", 0) == 0 ||
         path.rfind("/proc/self/fd/", 0) == 0;
}

// "dir/harmonize-42.json", 2 -> "dir/harmonize-42-2.json"; 0 -> unchanged.
// The suffix goes before the last extension of the file name, if any.
std::string numbered_path(std::string_view path, unsigned number);

struct WrittenReport {
  std::string final_path;  // empty on error
  bool renamed_because_exists = false;
  std::string error;  // empty on success
};

// Writes `text` to a temporary file in the target directory, then gives it the
// first free name among path, path-1, path-2, ... with link(2), which fails
// instead of replacing an existing file, so concurrent jobs cannot clobber
// each other. Where hard links are unsupported the name is reserved with
// O_EXCL and the temporary renamed over the reservation.
// An existing path that is not a regular file (/dev/null, a terminal, a pipe
// with a reader) or names an open descriptor (/dev/stdout) is written as it
// is, appending; a directory, a FIFO without reader, a socket or a block
// device is an error.
WrittenReport write_report_file(const std::string& path, std::string_view text);

}  // namespace harmonize::report
