#include "harmonize/session/report_output.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "report/format.hpp"
#include "report/json_report.hpp"
#include "report/report_fallback.hpp"
#include "report/report_file.hpp"
#include "sync/mpi/gather.hpp"

namespace harmonize {
namespace {

std::string program_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text) c = c == '\0' ? ' ' : c;
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.size() > 300 ? text.substr(0, 300) + "..." : text;
}

// The directory removed during the run, a full disk: the fallbacks.
void write_file(const std::string& path, report::JobReport& job) {
  const std::string text = report::render_report(job);
  const report::SavedReport saved = report::save_with_fallbacks(path, text, job.job.id);
  if (const std::string problem = report::save_problem(saved); !problem.empty())
    std::fprintf(stderr, "harmonize: %s\n", problem.c_str());
  if (saved.written.final_path.empty()) {
    job.report_lost = path;
    return;
  }
  job.report_file = saved.written.final_path;
  // A fallback's numbered name is already in the line above.
  if (saved.written.renamed_because_exists && !saved.fell_back) {
    std::fprintf(stderr, "harmonize: %s exists, not overwritten; report written to %s\n",
                 path.c_str(), saved.written.final_path.c_str());
  }
}

}  // namespace

report::JobReport session_sections(const config::PolicyResult& configuration, const SessionJob& job,
                                   const SessionClocks& clocks,
                                   std::optional<report::ClockCheckInfo> checked,
                                   const logic::JobRecords& records) {
  report::JobReport sections;
  sections.mode = config::to_string(configuration.policy.mode);
  sections.job = job_section(job, records);
  for (const auto& [name, value] : configuration.effective) sections.config[name] = value;
  sections.clock = clocks.section(std::move(checked));
  sections.clock.refused_resyncs = records.refused_resyncs;
  sections.truth_known = clocks.setup().test_clock_active;
  for (const logic::MergedCommunicator& communicator :
       logic::finish(records, clocks.setup().test_clock_active)) {
    sections.communicators.push_back(communicator.summary);
    sections.communicators.back().truth_space_violations = communicator.space_violations;
  }
  sections.missing_records = records.missing;
  return sections;
}

report::JobInfo job_section(const SessionJob& job, const logic::JobRecords& records) {
  report::JobInfo info;
  info.id = report::report_job_id(static_cast<int>(getpid()));
  info.ranks = job.size;
  info.hosts.assign(records.hosts.begin(), records.hosts.end());
  // The library's nodes, which node:N is checked against, not the host
  // names: with HARMONIZE_TEST_NODE_SIZE=2 four ranks on one host are 2.
  info.nodes = job.node.count;
  info.mpi_library = sync::mpi_library_version();
  info.program = program_command_line();
  info.started = job.started;
  info.finished = report::iso8601_utc(std::chrono::system_clock::now());
  return info;
}

void write_report_file(const std::string& report_setting, report::JobReport& job) {
  if (report_setting == "none") return;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  write_file(report::expand_report_path(report_setting, job.job.id, host), job);
}

void warn_of_communicators(const report::JobReport& job, const sync::NodeCrowding& crowding,
                           double miss_target, const ExplainConditions& explain) {
  double load[1] = {-1};
  if (getloadavg(load, 1) != 1) load[0] = -1;
  for (const report::CommSummary& comm : job.communicators) {
    report::RunConditions conditions{crowding.oversubscribed, crowding.ranks,
                                     crowding.cores,          load[0],
                                     crowding.ranks_here,     miss_target};
    explain(conditions, comm);
    const std::string warning = report::harmonization_warning(comm, conditions);
    if (!warning.empty()) std::fprintf(stderr, "harmonize: warning: %s\n", warning.c_str());
  }
}

}  // namespace harmonize
