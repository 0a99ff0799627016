// The end of a session: every process's communicator records go to world
// rank 0, which merges them, writes the JSON report and prints one line.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "harmonize/session/end_check.hpp"
#include "harmonize/session/session_impl.hpp"
#include "report/format.hpp"
#include "report/harmonization_warning.hpp"
#include "report/json_report.hpp"
#include "report/report_fallback.hpp"
#include "report/report_file.hpp"
#include "report/summary_line.hpp"
#include "sync/mpi/gather.hpp"
#include "sync/mpi/host_of_rank.hpp"
#include "sync/mpi/tree_merge.hpp"

namespace harmonize {
namespace {

std::string program_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text) c = c == '\0' ? ' ' : c;
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.size() > 300 ? text.substr(0, 300) + "..." : text;
}

std::string working_directory() {
  char path[4096];
  return ::getcwd(path, sizeof path) != nullptr ? std::string(path) : std::string(".");
}

// The report where HARMONIZE_REPORT says, else in the working directory, else
// in $TMPDIR or /tmp (the directory removed during the run, a full disk):
// a line says where it went, or which report is lost. The exit status stays
// the program's: the library never ends the process.
void write_file(const std::string& path, report::JobReport& job) {
  const std::string text = report::render_report(job);
  const report::SavedReport saved =
      report::save_report(path, text, report::fallback_name(path, job.job.id),
                          report::fallback_directories(working_directory(), std::getenv("TMPDIR")));
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

logic::JobRecords SessionImpl::merge_records_up_tree() {
  logic::ProcessContribution own;
  if (auto decoded = logic::decode_records(records_.encode())) {
    own.records = std::move(*decoded);
  } else {
    std::fprintf(stderr, "harmonize: error: statistics of rank %d are unreadable (a bug)\n",
                 world_rank_);
  }
  own.host = sync::processor_name();
  if (shared_clock_checked_) own.clock_fallback = shared_clock_notice_.own_fallback();
  own.threaded = barrier_threads_.peak() > 1;
  logic::JobRecords records = logic::records_of(std::move(own));
  // MPI_COMM_WORLD's copy carries no other tag-0 message (GroupTransport's
  // tags start at 1).
  constexpr int kTreeTag = 0;
  sync::merge_up_tree(
      world_, kTreeTag,
      {.absorb =
           [&](std::span<const double> child) {
             auto decoded = logic::decode_job_records(child);
             if (decoded) logic::merge_into(records, *decoded);
             return decoded.has_value();
           },
       .missing =
           [&](const sync::MissingSubtree& lost) {
             records.missing.push_back(
                 "world ranks " + std::to_string(lost.first_rank) + "-" +
                 std::to_string(lost.last_rank) + " (message " + std::to_string(lost.step) +
                 " to world rank " + std::to_string(world_rank_) +
                 " in the merge over the library's copy of MPI_COMM_WORLD): " + lost.what);
           },
       .encode = [&] { return logic::encode(records); }});
  return records;
}

void SessionImpl::write_report() {
  std::optional<report::ClockCheckInfo> end_check;
  if (world_clock_->exists()) {
    const protocol::WorldClock::Snapshot world = world_clock_->snapshot();
    EndCheckInputs inputs{.world = world_,
                          .clock = world.clock,
                          .synced_at = world.synced_at,
                          .layout = &layout_,
                          .yield_while_waiting = crowding_.oversubscribed,
                          .reference_skew = std::nullopt,
                          .own_skew = clocks_.skew,
                          .truth = clocks_.truth.get()};
    if (clocks_.test_clock_active) inputs.reference_skew = clocks_.skew_of_rank(0);
    try {
      end_check = check_world_clock_at_end(inputs);
    } catch (const std::exception& error) {
      if (world_rank_ == 0)
        std::fprintf(stderr, "harmonize: warning: the clock check at the end failed: %s\n",
                     error.what());
    }
  }
  const logic::JobRecords records = merge_records_up_tree();
  if (world_rank_ != 0) return;
  shared_clock_notice_.observe_everybody(records.fallbacks);
  shared_clock_notice_.flush();
  for (const std::string& missing : records.missing)
    std::fprintf(stderr, "harmonize: error: the report lacks the records of %s\n", missing.c_str());
  const std::vector<logic::MergedCommunicator> merged =
      logic::finish(records, clocks_.test_clock_active);
  const int peak = barrier_threads_.peak();

  report::JobReport job;
  job.mode = config::to_string(policy_.mode);
  job.job.id = report::report_job_id(static_cast<int>(getpid()));
  job.job.ranks = world_size_;
  job.job.hosts.assign(records.hosts.begin(), records.hosts.end());
  // The library's nodes, which node:N is checked against, not the host
  // names: with HARMONIZE_TEST_NODE_SIZE=2 four ranks on one host are 2.
  job.job.nodes = node_.count;
  job.job.mpi_library = sync::mpi_library_version();
  job.job.program = program_command_line();
  job.job.started = started_;
  job.job.finished = report::iso8601_utc(std::chrono::system_clock::now());
  for (const auto& [name, value] : configuration_.effective) job.config[name] = value;
  const bool synced = world_clock_->exists();
  job.clock.scheme = synced ? sync::to_string(world_clock_->last_report().scheme_used)
                            : config::to_string(policy_.sync);
  job.clock.time_source = config::to_string(policy_.time_source);
  job.clock.model = config::to_string(policy_.clock_model);
  job.clock.offset_alg = config::to_string(policy_.offset_algorithm);
  job.clock.fitpoints = policy_.fitpoints;
  job.clock.pingpongs = policy_.pingpongs;
  job.clock.initial_sync_seconds = world_clock_->initial_seconds();
  job.clock.sync_count = static_cast<std::uint64_t>(world_clock_->syncs());
  job.clock.sync_seconds_total = world_clock_->total_seconds();
  job.clock.end_check = end_check;
  if (clocks_.test_clock_active) {
    job.clock.test_clock = report::TestClockInfo{
        clocks_.test_clock.max_offset, clocks_.test_clock.max_drift, clocks_.test_clock.seed,
        clocks_.test_clock.node_size, config::to_string(policy_.test_clock_scope)};
  }
  if (synced) {
    const sync::SyncReport& r = world_clock_->last_report();
    job.clock.sync_layer = report::SyncLayerInfo{r.nodes, r.levels, r.fallback_note};
    job.clock.shared_clock_check = shared_clock_notice_.info(r.shared_clock);
  }
  if (arrival_) job.arrival = arrival_->report_info();
  job.truth_known = clocks_.test_clock_active;
  for (const logic::MergedCommunicator& communicator : merged) {
    job.communicators.push_back(communicator.summary);
    job.communicators.back().truth_space_violations = communicator.space_violations;
  }
  job.concurrent_harmonized_barriers =
      report::ThreadsInfo{records.threaded_processes, std::max(peak, 0)};
  job.missing_records = records.missing;
  if (timeline_) timeline_->contribute(job);

  if (policy_.report != "none") {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    write_file(report::expand_report_path(policy_.report, job.job.id, host), job);
  }
  if (!policy_.quiet) std::fprintf(stderr, "%s\n", report::summary_line(job).c_str());
  double load[1] = {-1};
  if (getloadavg(load, 1) != 1) load[0] = -1;
  report::RunConditions conditions{crowding_.oversubscribed, crowding_.ranks,
                                   crowding_.cores,          load[0],
                                   crowding_.ranks_here,     policy_.miss_target};
  for (const report::CommSummary& comm : job.communicators) {
    conditions.imposed_delay = arrival_ ? arrival_->imposed_delay(comm.size) : 0.0;
    const std::string warning = report::harmonization_warning(comm, conditions);
    if (!warning.empty()) std::fprintf(stderr, "harmonize: warning: %s\n", warning.c_str());
  }
  if (records.threaded_processes > 0) {
    // A limit, not a fault of the run (README, "Threads"): printed even with
    // HARMONIZE_QUIET=1, like the warnings above.
    std::fprintf(stderr,
                 "harmonize: warning: harmonized barriers ran in several threads at once in %llu "
                 "process%s (MPI_THREAD_MULTIPLE): each thread spins "
                 "towards its deadline and MPI polls in each one's allreduce, so with more busy "
                 "threads than cores a call waits for the scheduler's tick (milliseconds) and is "
                 "flagged; call harmonized barriers from one thread per process (README, "
                 "\"Threads\")\n",
                 static_cast<unsigned long long>(records.threaded_processes),
                 records.threaded_processes == 1 ? "" : "es");
  }
}

}  // namespace harmonize
