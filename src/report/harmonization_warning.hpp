#pragma once
// Whether the harmonized barriers of a communicator did what they are for
// (every process leaving at one instant), and if not, the likely cause: the
// user must never take timings after such barriers as synchronized.
#include <string>

#include "report/comm_stats.hpp"

namespace harmonize::report {

// What the job ran on, to name the likely cause.
struct RunConditions {
  bool oversubscribed = false;  // some node had more ranks than cores
  int node_ranks = 0;           // ranks on the most crowded node
  int node_cores = 0;           // cores they could run on
  double load_average = -1;     // 1-minute load average on rank 0's node; < 0: unknown
  int ranks_here = 0;           // ranks of this job on rank 0's node
  double miss_target = 0;       // HARMONIZE_MISS_TARGET, the slack's miss budget (from the policy)
  // HARMONIZE_ARRIVAL's delta on the communicator: the longest delay a
  // process spins past the deadline, which every call lasts on purpose.
  double imposed_delay = 0;
};

// A working harmonized barrier leaves within tens to hundreds of
// nanoseconds (docs/benchmarks.md); a median above this means processes were
// not running when their deadlines came.
inline constexpr double kHarmonizedSkewLimit = 2e-6;
// The slack keeps misses within the budget (HARMONIZE_MISS_TARGET, at most
// 50 %) unless keeping it costs too much (docs/barrier.md);
// beyond 5 % (or the budget, if larger) the run is not what was asked for.
inline constexpr double kUnreliableFailureRate = 0.05;
// A call normally lasts about the slack plus an allreduce; far longer on
// average means the slack ran away (issue 8, found running OSU over TCP:
// 5.7 ms per call against a slack of tens of microseconds).
inline constexpr double kRunawayFactor = 20.0;
inline constexpr double kRunawayFloor = 100e-6;
// A process descheduled inside the agreement learns the deadline
// milliseconds late; the work a program does between barriers makes the
// agreement after it microseconds slower than back to back (1 ms of sleep
// between barriers on a VM: needs of 7 us at the median against 0.6 us, and
// missed calls 5 us late at the median). Misses this late at the median are
// descheduling's.
inline constexpr double kDescheduledLateness = 100e-6;
// The program's time between barriers is "long" beside the needs from this
// many medians on: then it is what the needs follow.
inline constexpr double kLongWorkFactor = 10.0;
// Fewer harmonized calls say nothing either way.
inline constexpr unsigned kMinCallsForWarning = 100;

// One line (without the "harmonize: warning: " prefix), or empty when the
// communicator's harmonized barriers worked.
std::string harmonization_warning(const CommSummary& comm, const RunConditions& run);

}  // namespace harmonize::report
