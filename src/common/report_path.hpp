#pragma once
// The HARMONIZE_REPORT template rules, shared by the report layer (which
// writes the file) and the config layer (which checks at MPI_Init that it can
// be written). Header-only and dependency-free: common/ is below every layer.
#include <cstdlib>
#include <string>
#include <string_view>

namespace harmonize {

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

// The directory a report at `path` is created in ("." for a bare name).
inline std::string report_directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace harmonize
