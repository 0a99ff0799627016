#pragma once
// Can the report be written where HARMONIZE_REPORT says? Checked at MPI_Init
// so that a job whose report would be lost at MPI_Finalize never starts.
#include <string>

#include "config/policy.hpp"

namespace harmonize::config {

// "" when a report can be written at `path` (already expanded), else why not
// (one phrase). A new name or an existing regular file (the report then gets
// a numbered name beside it) needs a directory where a file can be created:
// the check creates and removes `probe_name` there. A device, a pipe with a
// reader or /dev/stdout is written as it is. Never throws.
std::string report_target_problem(const std::string& path, const std::string& probe_name);

// The same for an OTF2 archive (HARMONIZE_TRACE_FORMAT=otf2), a directory
// made at MPI_Finalize: its parent must accept one (a name taken already
// gets a numbered one beside it); a device or a pipe cannot be one.
std::string archive_target_problem(const std::string& path, const std::string& probe_name);

// The check of `result` as MPI_Init runs it: when a report will be written
// (mode observe or harmonize, report not "none"), expands the template as
// rank 0 will (this host, the batch job id or this pid) and adds an error
// line naming HARMONIZE_REPORT (or HARMONIZE_TRACE, the timeline, which rank 0
// writes by the same rules) when the target is unusable. The probe file is
// named after host and pid so that concurrent ranks and jobs never collide.
void check_report_target(PolicyResult& result);

}  // namespace harmonize::config
