#pragma once
// What survives the communicators of one process, and how world rank 0
// merges every process's records into the report (pure).
//
// Bounded in a create/free loop: the first communicators of each root are
// kept one by one (encoded at once: a few doubles each, not histograms), and
// later freed ones are folded into one record per (root, size); communicators
// every process has its own of (size 1, inter) are summed under one key.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/named_enum.hpp"
#include "harmonize/logic/call_log.hpp"
#include "report/comm_stats.hpp"

namespace harmonize::logic {

#define HARMONIZE_COMM_KINDS(X) X(intra, "intra") X(self, "self") X(inter, "inter")
HARMONIZE_NAMED_ENUM(CommKind, HARMONIZE_COMM_KINDS)

// Identity of a communicator across processes, for merging at the end: the
// world rank of its rank 0 and a counter on that process.
struct CommKey {
  std::uint64_t root_world_rank = 0;
  std::uint64_t serial = 0;
  auto operator<=>(const CommKey&) const = default;
};

// Keys of aggregate records. Folded records: serial kFoldedSerialBase + size
// under their root. Per-process records (self, inter): root kPerProcessRoot
// (+1 for inter). The two ranges never meet: real serials and world ranks
// stay far below 2^40.
inline constexpr std::uint64_t kFoldedSerialBase = std::uint64_t{1} << 40;
inline constexpr std::uint64_t kPerProcessRoot = std::uint64_t{1} << 41;
inline bool is_folded(const CommKey& key) {
  return key.serial >= kFoldedSerialBase && key.root_world_rank < kPerProcessRoot;
}
inline bool is_per_process(const CommKey& key) {
  return key.root_world_rank >= kPerProcessRoot;
}
inline bool is_aggregate(const CommKey& key) {
  return is_folded(key) || is_per_process(key);
}

// One communicator on one process: its statistics and the calls not yet
// reduced to its rank 0.
struct CommRecord {
  CommKey key;
  int rank = 0;  // in the communicator
  report::CommStats stats;
  std::uint64_t missed_any = 0;        // rank 0 of the communicator only
  std::uint64_t late_any = 0;          // rank 0 only
  std::uint64_t space_violations = 0;  // rank 0 only, test clocks only
  std::vector<CallTimes> pending;
};

// Adds one reduced batch of calls to the record of the communicator's rank 0.
void absorb(CommRecord& root, const CallBatchOutcome& outcome);

// Communicators (per root process) reported one by one; later ones folded.
inline constexpr std::uint64_t kDistinctCommunicators = 64;

class RecordStore {
 public:
  explicit RecordStore(int world_rank) : world_rank_(world_rank) {}

  // The last record of a communicator on this process. `at_finalize`: the
  // user never freed it, so it is kept whole whatever its number.
  // Thread-safe.
  void retire(CommRecord record, CommKind kind, bool at_finalize);

  // Everything retired, as flat doubles for one gather (thread-safe).
  std::vector<double> encode() const;

 private:
  int world_rank_;
  mutable std::mutex mutex_;
  std::vector<double> kept_{0.0};  // the count leads the encoding
  std::map<CommKey, CommRecord> folded_;
};

void append_record(std::vector<double>& out, const CommRecord& record);
// nullopt when the data is malformed (a bug, never user input).
std::optional<std::vector<CommRecord>> decode_records(std::span<const double> in);

// One communicator of the report, merged over its processes.
struct MergedCommunicator {
  report::CommSummary summary;
  // Calls in which a process left before the last entered (ground truth, with
  // test clocks); nullopt for aggregates, whose calls cannot be matched.
  std::optional<std::uint64_t> space_violations;
};

// Every process's records (by world rank), merged per communicator in
// process order (what the tree in job_records.hpp gives in any grouping);
// MPI_COMM_WORLD first, the others by key. `with_truth`: test clocks were on.
std::vector<MergedCommunicator> merge_records(std::vector<std::vector<CommRecord>> by_process,
                                              bool with_truth);

}  // namespace harmonize::logic
