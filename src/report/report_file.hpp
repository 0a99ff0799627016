#pragma once
// Where the report goes: the HARMONIZE_REPORT template, and a write that never
// overwrites an existing file and never leaves a half-written one.

#include <cstdlib>
#include <string>
#include <string_view>

#include "common/report_path.hpp"

namespace harmonize::report {

// The template rules are shared with the config layer, which checks
// HARMONIZE_REPORT at MPI_Init (common/report_path.hpp).
using harmonize::expand_report_path;
using harmonize::names_open_descriptor;
using harmonize::report_job_id;

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
