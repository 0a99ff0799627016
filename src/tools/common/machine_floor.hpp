#pragma once
// How often a process spinning on the clock is away: descheduled,
// interrupted, or its virtual CPU held by the host. An exit instant that
// falls in such a gap leaves late whatever the library does, so the share of
// time spent in gaps is the floor of late exits under any spin (the delayed
// process of an arrival pattern, a slack of microseconds): docs/barrier.md,
// "The machine's floor".
#include <cstddef>
#include <vector>

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

}  // namespace harmonize::tools
