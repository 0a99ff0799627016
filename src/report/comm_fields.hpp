#pragma once
// The fields of a communicator's record (CommStats) and of its job-wide
// summary (CommSummary), each listed once: the flat encoding that carries a
// rank's records to rank 0, the merge of two records of one process, the
// summary over the ranks and the JSON report follow from these lists. A new
// counter or distribution is a member in each struct and one line here.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "report/comm_stats.hpp"

namespace harmonize::report::fields {

// How the ranks' counts of one communicator make the summary's.
enum class Across {
  calls,   // every member counts the same calls: the largest, summed over per-process records
  events,  // each rank's own events (ground truth, collectives): summed, whatever the merge
};

// Who counts it: the collective timer's counters join a record at
// add_collectives.
enum class Counted { by_protocol, by_collective_timer };

// Where the JSON report writes it, in the communicator's object.
enum class Written {
  top,          // a key of its own
  truth,        // a key of its own, null when no test clock gives the truth
  collectives,  // in "collectives"
  nonblocking,  // in "collectives": "nonblocking_not_completed"
};

struct Counter {
  std::string_view json;
  std::uint64_t CommStats::*stats;
  std::uint64_t CommSummary::*summary;
  Across across;
  Written written = Written::top;
  Counted counted = Counted::by_protocol;
};

inline constexpr std::array kCounters{
    Counter{"calls", &CommStats::calls, &CommSummary::calls, Across::calls},
    Counter{"harmonized_calls", &CommStats::harmonized_calls, &CommSummary::harmonized_calls,
            Across::calls},
    Counter{"not_harmonized_calls", &CommStats::not_harmonized_calls,
            &CommSummary::not_harmonized_calls, Across::calls},
    Counter{"resyncs", &CommStats::resyncs, &CommSummary::resyncs, Across::calls},
    Counter{"truth_late_calls", &CommStats::truth_late_calls, &CommSummary::truth_late_calls,
            Across::events, Written::truth},
    Counter{"truth_late_unflagged", &CommStats::truth_late_unflagged,
            &CommSummary::truth_late_unflagged, Across::events, Written::truth},
    Counter{"truth_bound_checks", &CommStats::truth_bound_checks, &CommSummary::truth_bound_checks,
            Across::events, Written::truth},
    Counter{"truth_bound_violations", &CommStats::truth_bound_violations,
            &CommSummary::truth_bound_violations, Across::events, Written::truth},
    Counter{"truth_likely_violations", &CommStats::truth_likely_violations,
            &CommSummary::truth_likely_violations, Across::events, Written::truth},
    Counter{"calls_unmatched", &CommStats::collective_calls_unmatched,
            &CommSummary::collective_calls_unmatched, Across::events, Written::collectives,
            Counted::by_collective_timer},
    Counter{"log_spills", &CommStats::collective_log_spills, &CommSummary::collective_log_spills,
            Across::events, Written::collectives, Counted::by_collective_timer},
    Counter{"freed", &CommStats::nonblocking_freed, &CommSummary::nonblocking_freed, Across::events,
            Written::nonblocking, Counted::by_collective_timer},
    Counter{"cancelled", &CommStats::nonblocking_cancelled, &CommSummary::nonblocking_cancelled,
            Across::events, Written::nonblocking, Counted::by_collective_timer},
    Counter{"open_at_matching", &CommStats::nonblocking_open_at_matching,
            &CommSummary::nonblocking_open_at_matching, Across::events, Written::nonblocking,
            Counted::by_collective_timer},
    Counter{"untracked", &CommStats::nonblocking_untracked, &CommSummary::nonblocking_untracked,
            Across::events, Written::nonblocking, Counted::by_collective_timer},
};

// A rank's own events that the summary keeps rank by rank (index = rank in
// the communicator): which ranks missed, which left late.
// Beyond kRanksListed processes, the worst ranks stand in for the list.
struct PerRank {
  std::string_view json;
  std::uint64_t CommStats::*stats;
  std::vector<std::uint64_t> CommSummary::*summary;
  std::string_view worst_json;
  std::optional<WorstRanks> CommSummary::*worst;
};

inline constexpr std::array kPerRank{
    PerRank{"missed_events_per_rank", &CommStats::missed_calls,
            &CommSummary::missed_events_per_rank, "missed_events_worst_ranks",
            &CommSummary::missed_events_worst},
    PerRank{"late_events_per_rank", &CommStats::late_calls, &CommSummary::late_events_per_rank,
            "late_events_worst_ranks", &CommSummary::late_events_worst},
};

// Seconds that travel as they are (their merges differ: see comm_stats.cpp).
inline constexpr std::array kSeconds{&CommStats::resync_seconds, &CommStats::slack_initial,
                                     &CommStats::slack_final, &CommStats::slack_max,
                                     &CommStats::slack_min};

struct Distributed {
  std::string_view json;
  Distribution CommStats::*stats;
  Distribution CommSummary::*summary;
};

// Merged over the ranks (some only rank 0 fills: its comment in CommStats).
inline constexpr std::array kDistributions{
    Distributed{"exit_skew", &CommStats::exit_skew, &CommSummary::exit_skew},
    Distributed{"lateness", &CommStats::lateness, &CommSummary::lateness},
    Distributed{"late_by", &CommStats::late_by, &CommSummary::late_by},
    Distributed{"wait", &CommStats::wait, &CommSummary::wait},
    Distributed{"time_in_call", &CommStats::time_in_call, &CommSummary::time_in_call},
    Distributed{"between_calls", &CommStats::between_calls, &CommSummary::between_calls},
    Distributed{"truth_exit_skew", &CommStats::truth_exit_skew, &CommSummary::truth_exit_skew},
    Distributed{"clock_error_bound", &CommStats::clock_error_bound,
                &CommSummary::clock_error_bound},
    Distributed{"clock_error_likely", &CommStats::clock_error_likely,
                &CommSummary::clock_error_likely},
    Distributed{"truth_clock_error", &CommStats::truth_clock_error,
                &CommSummary::truth_clock_error},
    Distributed{"need", &CommStats::need, &CommSummary::need},
};

}  // namespace harmonize::report::fields
