#pragma once
// Where the report goes: the HARMONIZE_REPORT template, and a write that never
// overwrites an existing file and never leaves a half-written one.

#include <string>
#include <string_view>

namespace harmonize::report {

// %j -> job_id, %h -> host, %% -> %. Any other "%x" (and a trailing "%") is
// kept literally so a typo shows up in the file name instead of vanishing.
// The value "none" (no file) is the caller's business.
std::string expand_report_path(std::string_view path_template, std::string_view job_id,
                               std::string_view host);

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
WrittenReport write_report_file(const std::string& path, std::string_view text);

}  // namespace harmonize::report
