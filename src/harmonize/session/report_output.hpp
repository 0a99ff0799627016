#pragma once
// World rank 0 at MPI_Finalize: the report's "job" section, the report file,
// and the warnings said after the summary line.
#include <functional>
#include <string>

#include "config/policy.hpp"
#include "harmonize/logic/job_records.hpp"
#include "harmonize/session/session_clocks.hpp"
#include "harmonize/session/session_job.hpp"
#include "report/harmonization_warning.hpp"
#include "report/job_report.hpp"

namespace harmonize {

// Who ran what, where and when (`records`: every process's, merged).
report::JobInfo job_section(const SessionJob& job, const logic::JobRecords& records);

// The sections the session owns (mode, job, configuration, clock, the
// communicators) from every process's merged records; `checked`: the clock
// check at the end, when it ran.
report::JobReport session_sections(const config::PolicyResult& configuration, const SessionJob& job,
                                   const SessionClocks& clocks,
                                   std::optional<report::ClockCheckInfo> checked,
                                   const logic::JobRecords& records);

// The report where HARMONIZE_REPORT (`report_setting`, "none" for no file)
// says, else in the working directory, else in $TMPDIR or /tmp: a line says
// where it went, or which report is lost (job.report_file, job.report_lost).
// The exit status stays the program's: the library never ends the process.
void write_report_file(const std::string& report_setting, report::JobReport& job);

// The harmonization warning of every communicator that earned one; `explain`
// adds what the features imposed on purpose.
using ExplainConditions = std::function<void(report::RunConditions&, const report::CommSummary&)>;
void warn_of_communicators(const report::JobReport& job, const sync::NodeCrowding& crowding,
                           double miss_target, const ExplainConditions& explain);

}  // namespace harmonize
