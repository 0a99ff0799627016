#pragma once
// How often a process spinning on the clock is away: descheduled,
// interrupted, or its virtual CPU held by the host. An exit instant that
// falls in such a gap leaves late whatever the library does, so the share of
// time spent in gaps is the floor of late exits under any spin (the delayed
// process of an arrival pattern, a slack of microseconds): docs/barrier.md,
// "The machine's floor".
#include <cstddef>
#include <vector>

#include "tools/common/between_calls.hpp"

namespace harmonize::tools {

struct MachineFloor {
  double seconds = 0;     // how long the spinners spun, each
  double per_second = 0;  // gaps above the threshold per second, per spinner
  double away_share = 0;  // of the time, in those gaps
  double gap_p50 = 0;     // seconds
  double gap_p90 = 0;
};

// Pure: from the gaps (seconds, any order) that `spinners` processes saw over
// `seconds` of spinning each.
MachineFloor summarize_gaps(std::vector<double> gaps, double seconds, int spinners);

// `spinners` threads read CLOCK_MONOTONIC back to back for `seconds`, keeping
// every interval between two reads longer than `threshold`.
MachineFloor measure_machine_floor(double seconds, double threshold, int spinners);

// The same floor for a program that works between its barriers: `spinners`
// threads each repeat the work (call by call, as the ranks draw it), then a
// spin of `spin` seconds to a deadline, for at least `seconds` and 200
// iterations (at most 20 s), and count the iterations any of them left the
// spin later than `threshold` after its deadline. A sleep's wake-up, or a
// long spin, meets the scheduler in ways a spin alone does not: this is the
// flagged share no slack avoids after that work (missed deadlines aside).
struct WorkFloor {
  long iterations = 0;
  double late_share = 0;  // of iterations, any spinner late
};
WorkFloor measure_work_floor(const BetweenCalls& work, double spin, double seconds,
                             double threshold, int spinners);

}  // namespace harmonize::tools
