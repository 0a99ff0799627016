#pragma once
// Which of two populations a non-blocking call's overlap belongs to. One key
// mixes them when a benchmark runs two loops (OSU: a pure loop that waits
// right after the start, overlap ~0.05 us, and a loop that computes in
// between), and the median of the mix jumps from size to size. Shared by the
// report (overlap_worked / overlap_waited) and the timeline (per call).
// Header-only and dependency-free: common/ is below every layer.

namespace harmonize {

// A call "worked" when the program's own time between its start and its
// completion call was at least this share of the call's local time (start
// entry to completion exit); else it "waited" at once. OSU 7.4
// osu_iallreduce, 8 B-1 KiB: its pure loop's calls 3-9 % (p10-p90), its
// compute loop's 52-83 %; a call that only stamps the clock between start
// and wait, 4-20 % (docs/collectives.md, "Two populations").
inline constexpr double kOverlapWorkedShare = 0.3;

constexpr bool overlap_worked(double overlap, double local) {
  return overlap >= kOverlapWorkedShare * local;
}

}  // namespace harmonize
