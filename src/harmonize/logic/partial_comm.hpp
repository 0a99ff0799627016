#pragma once
// One communicator's records from some of its processes, merged so far
// (pure). At MPI_Finalize the records travel up a reduction tree: each
// process merges its children's partials into its own and sends one message
// up, so world rank 0 receives O(log P) messages and holds O(communicators)
// bytes. The merge is associative: a tree gives the report a linear merge
// would give (docs/report.md, "At scale").
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "harmonize/logic/record_store.hpp"

namespace harmonize::logic {

// One rank's own events of the communicator.
struct RankEvents {
  int rank = 0;  // in the communicator (world rank for per-process aggregates)
  std::uint64_t missed = 0;
  std::uint64_t late = 0;
  friend bool operator==(const RankEvents&, const RankEvents&) = default;
};

struct PartialComm {
  CommKey key;
  std::uint64_t members = 0;  // records merged
  // The lowest rank merged: the communicator's rank 0 once all are in, whose
  // slack, any-counts and ground truth of space the report keeps.
  int root_rank = 0;
  report::CommStats stats;  // report::add_ranks of the members' records
  std::uint64_t missed_any = 0;
  std::uint64_t late_any = 0;
  std::uint64_t space_violations = 0;
  // Every member's events by rank while at most report::kRanksListed; past
  // that only the worst ranks (per kind of event) and the counts below.
  std::vector<RankEvents> ranks;
  bool ranks_complete = true;
  std::uint64_t ranks_with_missed = 0;
  std::uint64_t ranks_with_late = 0;
  // The calls no flush reduced yet, element-wise over the members
  // (CallLog::pack_for_max/min); dropped if members disagree on how many.
  std::uint64_t pending_calls = 0;
  bool pending_agree = true;
  std::vector<double> pending_max;
  std::vector<double> pending_min;
};

PartialComm partial_of(const CommRecord& record);

// Adds `more` (other processes' records of the same communicator) to `into`.
void merge_into(PartialComm& into, const PartialComm& more);

// The communicator of the report, once every process's record is merged.
MergedCommunicator finish(const PartialComm& partial, bool with_truth);

void append_partial(std::vector<double>& out, const PartialComm& partial);
// Reads one at `at` and advances it; nullopt if malformed (a bug).
std::optional<PartialComm> read_partial(std::span<const double> in, std::size_t& at);

}  // namespace harmonize::logic
