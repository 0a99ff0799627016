// The end of a session: every process's communicator records go to world
// rank 0, which merges them, writes the JSON report and prints one line.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "harmonize/record_codec.hpp"
#include "harmonize/session_impl.hpp"
#include "report/format.hpp"
#include "report/harmonization_warning.hpp"
#include "report/json_report.hpp"
#include "report/report_file.hpp"
#include "report/summary_line.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize {
namespace {

std::string program_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : text) c = c == '\0' ? ' ' : c;
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text.size() > 300 ? text.substr(0, 300) + "..." : text;
}

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  if (PMPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
  std::string version(text, static_cast<std::size_t>(length));
  const auto newline = version.find_first_of("\r\n");
  return newline == std::string::npos ? version : version.substr(0, newline);
}

std::vector<std::string> gather_hosts(MPI_Comm world, int rank, int size) {
  char mine[MPI_MAX_PROCESSOR_NAME] = {0};
  int length = 0;
  std::vector<char> all(rank == 0 ? static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME : 0);
  if (PMPI_Get_processor_name(mine, &length) != MPI_SUCCESS) mine[0] = '\0';
  mine[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
  sync::check_mpi(PMPI_Gather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(),
                              MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, world),
                  "PMPI_Gather");
  std::set<std::string> hosts;
  for (int i = 0; rank == 0 && i < size; ++i) hosts.insert(&all[i * MPI_MAX_PROCESSOR_NAME]);
  return {hosts.begin(), hosts.end()};
}

// Combines the calls no flush reduced yet (same call index on every member).
void merge_pending(std::vector<CommRecord>& members, bool with_truth) {
  const std::size_t n = members.front().pending.size();
  for (const CommRecord& member : members) {
    if (member.pending.size() != n) return;  // a member is missing calls: skip, never guess
  }
  logic::CallLog first(n);
  for (const logic::CallTimes& call : members.front().pending) first.add(call);
  std::vector<double> maxima = first.pack_for_max();
  std::vector<double> minima = first.pack_for_min();
  for (std::size_t m = 1; m < members.size(); ++m) {
    logic::CallLog other(n);
    for (const logic::CallTimes& call : members[m].pending) other.add(call);
    const std::vector<double> max_m = other.pack_for_max();
    const std::vector<double> min_m = other.pack_for_min();
    for (std::size_t i = 0; i < maxima.size(); ++i) maxima[i] = std::max(maxima[i], max_m[i]);
    for (std::size_t i = 0; i < minima.size(); ++i) minima[i] = std::min(minima[i], min_m[i]);
  }
  const logic::CallBatchOutcome outcome = logic::combine_batch(maxima, minima, n, with_truth);
  CommRecord& root = members.front();
  for (double skew : outcome.exit_skew) root.stats.exit_skew.add(skew);
  for (double skew : outcome.truth_exit_skew) root.stats.truth_exit_skew.add(skew);
  root.missed_any += outcome.missed_any;
  root.space_violations += outcome.space_violations;
}

}  // namespace

void SessionImpl::write_report(const std::vector<double>& mine) {
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(world_rank_ == 0 ? world_size_ : 0);
  sync::check_mpi(PMPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, world_),
                  "PMPI_Gather");
  std::vector<int> offsets(lengths.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = static_cast<int>(total);
    total += static_cast<std::size_t>(lengths[i]);
  }
  std::vector<double> all(total);
  sync::check_mpi(PMPI_Gatherv(mine.data(), length, MPI_DOUBLE, all.data(), lengths.data(),
                               offsets.data(), MPI_DOUBLE, 0, world_),
                  "PMPI_Gatherv");
  const std::vector<std::string> hosts = gather_hosts(world_, world_rank_, world_size_);
  if (world_rank_ != 0) return;

  // Group every process's record of one communicator, ordered by rank.
  std::map<CommKey, std::vector<CommRecord>> by_comm;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    auto decoded = decode_records(std::span(all).subspan(static_cast<std::size_t>(offsets[i]),
                                                         static_cast<std::size_t>(lengths[i])));
    if (!decoded) {
      std::fprintf(stderr, "harmonize: error: statistics of rank %zu are unreadable (a bug)\n", i);
      continue;
    }
    for (CommRecord& record : *decoded) by_comm[record.key].push_back(std::move(record));
  }

  report::JobReport job;
  job.mode = config::to_string(policy_.mode);
  job.job.id = report::report_job_id(static_cast<int>(getpid()));
  job.job.ranks = world_size_;
  job.job.hosts = hosts;
  job.job.nodes = static_cast<int>(hosts.size());
  job.job.mpi_library = mpi_library();
  job.job.program = program_command_line();
  job.job.started = started_;
  job.job.finished = report::iso8601_utc(std::chrono::system_clock::now());
  for (const auto& [name, value] : configuration_.effective) job.config[name] = value;
  job.clock.scheme = world_sync_ ? sync::to_string(world_sync_->last_report().scheme_used)
                                 : config::to_string(policy_.sync);
  job.clock.time_source = config::to_string(policy_.time_source);
  job.clock.model = config::to_string(policy_.clock_model);
  job.clock.offset_alg = config::to_string(policy_.offset_algorithm);
  job.clock.fitpoints = policy_.fitpoints;
  job.clock.pingpongs = policy_.pingpongs;
  job.clock.initial_sync_seconds = initial_sync_seconds_;
  job.clock.sync_count = world_syncs_;
  job.clock.sync_seconds_total = world_sync_seconds_;
  if (clocks_.test_clock_active) {
    job.clock.test_clock =
        report::TestClockInfo{clocks_.test_clock.max_offset, clocks_.test_clock.max_drift,
                              clocks_.test_clock.seed, clocks_.test_clock.node_size};
  }

  std::vector<std::optional<std::uint64_t>> violations;
  auto add_communicator = [&](std::vector<CommRecord>& members) {
    std::sort(members.begin(), members.end(),
              [](const CommRecord& a, const CommRecord& b) { return a.rank < b.rank; });
    const bool aggregate = is_aggregate(members.front().key);
    const bool per_process = members.front().key.root_world_rank >= kPerProcessRoot;
    if (!aggregate) merge_pending(members, clocks_.test_clock_active);
    std::vector<report::CommStats> stats;
    std::uint64_t missed_any = members.front().missed_any;
    for (const CommRecord& member : members) {
      stats.push_back(member.stats);
      // An aggregate cannot tell which calls coincide: the most misses of one
      // process is a lower bound of the calls in which any process missed.
      if (aggregate) missed_any = std::max(missed_any, member.stats.missed_calls);
    }
    job.communicators.push_back(report::summarize(
        stats, missed_any, per_process ? report::Merge::per_process : report::Merge::same_calls));
    violations.push_back(
        aggregate ? std::nullopt : std::optional<std::uint64_t>(members.front().space_violations));
  };
  // MPI_COMM_WORLD first, the others in creation order.
  for (auto& [key, members] : by_comm) {
    if (members.front().stats.name == "MPI_COMM_WORLD") add_communicator(members);
  }
  for (auto& [key, members] : by_comm) {
    if (members.front().stats.name != "MPI_COMM_WORLD") add_communicator(members);
  }

  nlohmann::json json = report::to_json(job);
  if (world_sync_) {
    const sync::SyncReport& r = world_sync_->last_report();
    json["clock"]["sync_nodes"] = r.nodes;
    json["clock"]["sync_levels"] = r.levels;
    json["clock"]["sync_note"] = r.fallback_note;
  }
  for (std::size_t i = 0; i < violations.size(); ++i) {
    // Ground truth of "synchronized in space": calls in which a process left
    // before the last one entered (test clocks only; must be 0).
    json["communicators"][i]["truth_space_violations"] = clocks_.test_clock_active && violations[i]
                                                             ? nlohmann::json(*violations[i])
                                                             : nlohmann::json(nullptr);
  }

  if (policy_.report != "none") {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    const std::string path = report::expand_report_path(policy_.report, job.job.id, host);
    // Host or program names are not guaranteed UTF-8; a replaced byte beats
    // losing the whole report to an exception.
    const report::WrittenReport written = report::write_report_file(
        path, json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    if (!written.error.empty()) {
      std::fprintf(stderr, "harmonize: error: cannot write the report to %s: %s\n", path.c_str(),
                   written.error.c_str());
    } else {
      job.report_file = written.final_path;
      if (written.renamed_because_exists) {
        std::fprintf(stderr, "harmonize: %s exists, not overwritten; report written to %s\n",
                     path.c_str(), written.final_path.c_str());
      }
    }
  }
  if (!policy_.quiet) std::fprintf(stderr, "%s\n", report::summary_line(job).c_str());
  double load[1] = {-1};
  if (getloadavg(load, 1) != 1) load[0] = -1;
  const report::RunConditions conditions{crowding_.oversubscribed, crowding_.ranks, crowding_.cores,
                                         load[0], crowding_.ranks_here};
  for (const report::CommSummary& comm : job.communicators) {
    const std::string warning = report::harmonization_warning(comm, conditions);
    if (!warning.empty()) std::fprintf(stderr, "harmonize: warning: %s\n", warning.c_str());
  }
}

}  // namespace harmonize
