// The end of a session: every process's communicator records go to world
// rank 0, which merges them, asks every feature for its section, writes the
// JSON report and prints one line.
#include <cstdio>

#include "harmonize/session/records_merge.hpp"
#include "harmonize/session/report_output.hpp"
#include "harmonize/session/session_impl.hpp"
#include "report/summary_line.hpp"
#include "sync/mpi/host_of_rank.hpp"

namespace harmonize {

logic::ProcessContribution SessionImpl::own_contribution() const {
  logic::ProcessContribution own;
  if (auto decoded = logic::decode_records(comms_.records().encode())) {
    own.records = std::move(*decoded);
  } else {
    std::fprintf(stderr, "harmonize: error: statistics of rank %d are unreadable (a bug)\n",
                 job_.rank);
  }
  own.host = sync::processor_name();
  own.clock_fallback = clocks_.notice().own_fallback();
  own.refused_resyncs = static_cast<std::uint64_t>(clocks_.world().refused_resyncs());
  each_feature([&own](feature::Feature& feature) { feature.contribute_own(own); });
  return own;
}

void SessionImpl::write_report() {
  std::optional<report::ClockCheckInfo> checked = clocks_.end_check();
  const logic::JobRecords records =
      merge_records_up_tree(job_.world, job_.rank, own_contribution());
  if (job_.rank != 0) return;
  clocks_.notice().observe_everybody(records.fallbacks);
  clocks_.notice().flush();
  for (const std::string& missing : records.missing)
    std::fprintf(stderr, "harmonize: error: the report lacks the records of %s\n", missing.c_str());

  report::JobReport job =
      session_sections(configuration_, job_, clocks_, std::move(checked), records);
  each_feature([&](feature::Feature& feature) { feature.contribute(job, records); });

  write_report_file(policy().report, job);
  if (!policy().quiet) std::fprintf(stderr, "%s\n", report::summary_line(job).c_str());
  warn_of_communicators(
      job, job_.crowding, policy().miss_target,
      [this](report::RunConditions& conditions, const report::CommSummary& comm) {
        each_feature([&](feature::Feature& feature) { feature.explain(conditions, comm); });
      });
  each_feature([&job](feature::Feature& feature) { feature.say_at_end(job); });
}

}  // namespace harmonize
