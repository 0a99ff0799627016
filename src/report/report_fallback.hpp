#pragma once
// A report that cannot be written where HARMONIZE_REPORT says (its directory
// removed during the run, a full disk) is written somewhere else rather than
// lost: the working directory, then $TMPDIR (or /tmp). Only when every place
// fails is it lost, and the line says which report that was.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report_file.hpp"

namespace harmonize::report {

// The name a fallback copy gets: the requested file's own name, or, for a
// device or a descriptor (/dev/full, /dev/stdout), "harmonize-<job id>.json".
std::string fallback_name(const std::string& path, std::string_view job_id);

// The places to try after the requested one, in order: `working_directory`,
// then `tmpdir` if set and not empty, else "/tmp".
std::vector<std::string> fallback_directories(const std::string& working_directory,
                                              const char* tmpdir);

struct SavedReport {
  std::string requested;   // the path asked for
  std::string error;       // why it could not be written there ("" if it was)
  WrittenReport written;   // where it is (final_path empty: lost)
  bool fell_back = false;  // written to a fallback place
  // Every fallback tried in vain: "path: why".
  std::vector<std::string> fallback_errors;
};

// One attempt to write something at a path, as write_report_file does it:
// where it went (never over an existing file) or why not. Never throws.
using Writer = std::function<WrittenReport(const std::string& path)>;

// `write` to `path`, then to `name` in each of `directories`; a directory
// that is `path`'s own is skipped when `skip_own_directory` (it just failed).
SavedReport save_somewhere(const std::string& path, const std::string& name,
                           const std::vector<std::string>& directories, bool skip_own_directory,
                           const Writer& write);

// save_somewhere with write_report_file (a device's or a pipe's directory is
// no reason to skip a fallback there).
SavedReport save_report(const std::string& path, std::string_view text, const std::string& name,
                        const std::vector<std::string>& directories);

// The fallback places of save_with_fallbacks: the working directory, then
// $TMPDIR or /tmp.
std::vector<std::string> fallback_places();

// The stderr lines (without "harmonize: " nor a newline) a save calls for:
// none when written as asked; else one error saying where it went instead,
// or that the `what` (report, timeline) at `requested` is lost, with every
// reason.
std::string save_problem(const SavedReport& saved, std::string_view what = "report");

// save_report to `path`, then to the fallback places (the working
// directory, $TMPDIR or /tmp) under fallback_name(path, job_id).
SavedReport save_with_fallbacks(const std::string& path, std::string_view text,
                                std::string_view job_id);

}  // namespace harmonize::report
