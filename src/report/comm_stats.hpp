#pragma once
// What one rank records about one communicator, and the job-wide summary that
// rank 0 builds from all ranks' records after gathering them.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "report/collective_stats.hpp"
#include "report/distribution.hpp"

namespace harmonize::report {

// Per rank, per communicator. All durations in seconds.
struct CommStats {
  std::string name;  // "MPI_COMM_WORLD", "comm#3 (size 4)"
  int size = 0;
  std::string kind;  // "intra", "self", "inter"

  std::uint64_t calls = 0;
  std::uint64_t harmonized_calls = 0;
  std::uint64_t missed_calls = 0;  // calls in which THIS rank missed the deadline
  // Calls in which THIS rank saw the deadline in time but left more than the
  // late-exit threshold after it (descheduled while spinning).
  std::uint64_t late_calls = 0;
  // Ground truth (test clocks): calls in which this rank truly left later
  // than the deadline by more than the threshold plus its clock-error bound,
  // and of those, the ones its flag did not mark (neither missed nor late).
  std::uint64_t truth_late_calls = 0;
  std::uint64_t truth_late_unflagged = 0;
  // Ground truth of the clock-error bound (test clocks): exits at which this
  // rank's true clock error was checked against its bound, and found beyond
  // the proven bound, and beyond the likely one.
  std::uint64_t truth_bound_checks = 0;
  std::uint64_t truth_bound_violations = 0;
  std::uint64_t truth_likely_violations = 0;
  // Calls passed to the native barrier because the library could not serve
  // this communicator (e.g. an internal MPI call failed), and why.
  std::uint64_t not_harmonized_calls = 0;
  std::string not_harmonized_reason;
  std::uint64_t resyncs = 0;
  double resync_seconds = 0.0;

  double slack_initial = 0.0;
  double slack_final = 0.0;
  double slack_max = 0.0;
  double slack_min = 0.0;

  Distribution exit_skew;  // rank 0 only: per call, max - min exit time on the global clock
  Distribution lateness;   // exit time - deadline when the deadline was missed
  Distribution late_by;    // exit time - deadline of late exits
  Distribution wait;       // time spun waiting for the deadline
  // Rank 0 only: per harmonized call, the time from the last entry until the
  // last process knew the deadline (agreed by every member): the smallest
  // slack that call could have had. The slack is chosen from these.
  Distribution need;
  Distribution time_in_call;  // whole barrier call
  // The program's own time between two barriers: from one call's exit to
  // the next call's entry, per rank (what the slack is weighed against).
  Distribution between_calls;
  Distribution truth_exit_skew;  // rank 0 only, with test clocks: skew on the untouched clock
  // Rank 0 only: per call, the largest clock-error bound of the processes at
  // their exits (any process's global clock is within it of the reference),
  // the largest likely (99 %) bound, and with test clocks the largest true error.
  Distribution clock_error_bound;
  Distribution clock_error_likely;
  Distribution truth_clock_error;

  // The collective calls timed on this communicator (docs/collectives.md):
  // matched across the members, per operation, size and root; calls recorded
  // but never matched (members disagreeing on the sequence, more than the log
  // holds between two matchings, or the communicator freed first); and how
  // often a full log was set aside inside a timed call.
  CollectiveTable collectives;
  std::uint64_t collective_calls_unmatched = 0;
  std::uint64_t collective_log_spills = 0;
  // Non-blocking collectives that did not complete on this process, by how
  // they ended (collectives/collective_timer.hpp Ending): never matched.
  std::uint64_t nonblocking_freed = 0;
  std::uint64_t nonblocking_cancelled = 0;
  std::uint64_t nonblocking_open_at_matching = 0;
  std::uint64_t nonblocking_untracked = 0;

  friend bool operator==(const CommStats&, const CommStats&) = default;
};

// Adds `more` (another communicator's record on the same process) to `total`:
// counters and times add up, distributions merge, slack keeps the extremes.
void accumulate(CommStats& total, const CommStats& more);
// The collective timer's fields of `timed` (the table and its counters,
// what a communicator's matchings filled in) added to `record`.
void add_collectives(CommStats& record, const CommStats& timed);

// Flat encoding of everything except name, kind and not_harmonized_reason (every rank of a
// communicator agrees on those; rank 0 keeps its own). Packs into the same
// kind of vector as Distribution::append_to so one PMPI_Gatherv moves it.
void append_to(std::vector<double>& out, const CommStats& stats);
std::vector<double> to_flat(const CommStats& stats);
// Reads one CommStats at `offset` and advances it; nullopt if malformed.
std::optional<CommStats> read_comm_stats(std::span<const double> in, std::size_t& offset);

// Ranks of one communicator too large to list rank by rank (more than
// kRanksListed processes): how many had any such event, and the ones with
// the most (at most kWorstRanks, most first, the lower rank first on ties).
inline constexpr std::size_t kRanksListed = 1024;
inline constexpr std::size_t kWorstRanks = 16;
struct WorstRanks {
  std::uint64_t ranks_with_events = 0;
  std::vector<std::pair<int, std::uint64_t>> worst;  // (rank, events)
  friend bool operator==(const WorstRanks&, const WorstRanks&) = default;
};

// The job-wide view of one communicator.
struct CommSummary {
  std::string name;
  int size = 0;
  std::string kind;

  std::uint64_t calls = 0;                            // per rank (ranks agree; the maximum is kept)
  std::uint64_t harmonized_calls = 0;                 // per rank (maximum)
  std::uint64_t not_harmonized_calls = 0;             // per rank (maximum)
  std::string not_harmonized_reason;                  // the first rank's that has one
  std::uint64_t missed_calls_any = 0;                 // calls in which at least one process missed
  std::vector<std::uint64_t> missed_events_per_rank;  // index = rank in the communicator
  double failure_rate = 0.0;  // missed_calls_any / harmonized_calls (0 if none harmonized)
  // Calls in which no process missed but at least one left late.
  std::uint64_t late_calls_any = 0;
  std::vector<std::uint64_t> late_events_per_rank;  // index = rank in the communicator
  // Instead of the two lists above (then empty) when the communicator has
  // more than kRanksListed processes.
  std::optional<WorstRanks> missed_events_worst;
  std::optional<WorstRanks> late_events_worst;
  double late_rate = 0.0;                     // late_calls_any / harmonized_calls
  std::uint64_t truth_late_calls = 0;         // summed over ranks (test clocks)
  std::uint64_t truth_late_unflagged = 0;     // summed over ranks (test clocks)
  std::uint64_t truth_bound_checks = 0;       // summed over ranks (test clocks)
  std::uint64_t truth_bound_violations = 0;   // summed over ranks (test clocks)
  std::uint64_t truth_likely_violations = 0;  // summed over ranks (test clocks)
  std::uint64_t resyncs = 0;                  // collective, so ranks agree (maximum)
  double resync_seconds = 0.0;                // longest total among ranks: the job waited that long

  double slack_initial = 0.0;  // as decided by rank 0, which sets the deadlines
  double slack_final = 0.0;
  double slack_max = 0.0;  // rank 0's, like all four
  double slack_min = 0.0;

  Distribution exit_skew;  // merged over ranks (only rank 0 contributes)
  Distribution lateness;   // merged over ranks
  Distribution late_by;    // merged over ranks
  Distribution wait;
  Distribution need;  // only rank 0 contributes
  Distribution time_in_call;
  Distribution between_calls;
  Distribution truth_exit_skew;
  Distribution clock_error_bound;
  Distribution clock_error_likely;
  Distribution truth_clock_error;
  CollectiveTable collectives;                   // merged over ranks
  std::uint64_t collective_calls_unmatched = 0;  // summed over ranks
  std::uint64_t collective_log_spills = 0;       // summed over ranks
  std::uint64_t nonblocking_freed = 0;           // summed over ranks, as the three below
  std::uint64_t nonblocking_cancelled = 0;
  std::uint64_t nonblocking_open_at_matching = 0;
  std::uint64_t nonblocking_untracked = 0;
  // Ground truth of "synchronized in space" (test clocks, one communicator):
  // calls in which a process left before the last one entered; must be 0.
  std::optional<std::uint64_t> truth_space_violations;
};

// How the records of one summary combine. same_calls: the ranks of one
// communicator, which all count the same calls (the maximum is kept).
// per_process: one record per process of what each process has its own of
// (MPI_COMM_SELF, intercommunicators): counts add up.
enum class Merge { same_calls, per_process };

// Calls in which any process missed (left late): counted by the integrator,
// since the flag is local and only a per-call reduction knows about *any*.
struct AnyCounts {
  AnyCounts(std::uint64_t missed_calls = 0, std::uint64_t late_calls = 0)
      : missed(missed_calls), late(late_calls) {}
  std::uint64_t missed;
  std::uint64_t late;
};

// Adds the records of more ranks of one communicator (`more`, itself one
// rank's record or several combined) to `total`, the way the summary
// combines ranks: counters by `merge`, distributions and collectives merged,
// the longest resync total; the per-rank counters keep their maximum (for
// aggregates, a lower bound of the calls in which any process missed).
// Name, size, kind and slack stay `total`'s: those of the ranks' root.
// Associative, so records can be combined in any grouping (a tree).
void add_ranks(CommStats& total, const CommStats& more, Merge merge);

// The slack fields, which only the communicator's rank 0 holds, from `root`.
void copy_root_slack(CommStats& to, const CommStats& root);
// A record holding only `root`'s name, size, kind and slack, to add ranks to.
CommStats root_header(const CommStats& root);
// root_header(per_rank[0]) with every rank added (add_ranks).
CommStats combine_ranks(std::span<const CommStats> per_rank, Merge merge);

// The summary of `combined` (every rank's record added up by add_ranks),
// without the per-rank lists, which only the caller knows.
CommSummary summary_of(const CommStats& combined, AnyCounts any);

// `per_rank[i]` is the record of rank i of the communicator (not empty).
CommSummary summarize(std::span<const CommStats> per_rank, AnyCounts any,
                      Merge merge = Merge::same_calls);

}  // namespace harmonize::report
