#pragma once
// Check-Global-Clock (paper 001 Alg. 6) as a library function: how far the
// global clocks of some ranks are from rank 0's, measured, next to what each
// rank's error bound claims. A measured disagreement beyond the two bounds
// plus the measurement's own uncertainty proves a bound dishonest.
#include <span>
#include <vector>

#include "clock/global_clock.hpp"
#include "sync/transport.hpp"

namespace harmonize::sync {

// The cost is bounded: at most this many checked ranks per call (callers
// sample, see sample_ranks), each kCheckMeasurements SKaMPI measurements of
// kCheckPingpongs exchanges with rank 0, the most certain one kept: 40 round
// trips per checked rank, one at a time (~20 us each over shared memory,
// ~2 ms over a 50 us TCP path).
inline constexpr int kMaxCheckedRanks = 64;
inline constexpr int kCheckMeasurements = 4;
inline constexpr int kCheckPingpongs = 10;

struct ClockCheck {
  int rank = 0;                // in the transport's group
  double offset = 0;           // rank's global clock minus rank 0's, measured
  double uncertainty = 0;      // the true difference is within offset +- uncertainty, proven
  double bound = 0;            // rank's own reported error bound at the measurement
  double reference_bound = 0;  // rank 0's reported bound at the measurement

  // Both bounds honest implies |true difference| <= bound + reference_bound,
  // and the measurement is off by at most its uncertainty.
  bool consistent() const;
};

// Called by rank 0 of `group` and by every rank in `checked` (others may call
// it too and return at once), all with the same list, which must not exceed
// kMaxCheckedRanks (std::invalid_argument otherwise); rank 0 and ranks
// outside the group in it are skipped. Rank 0 serves each checked rank in
// list order, which measures over the global clocks `clk` and sends its
// result back. Returns the results on rank 0 (list order), a checked rank's
// own on that rank, nothing elsewhere.
std::vector<ClockCheck> check_global_clock(Transport& group, const clock::GlobalClock& clk,
                                           std::span<const int> checked);

// Up to `count` ranks of 1..size-1, evenly spread, always including the last.
std::vector<int> sample_ranks(int size, int count = kMaxCheckedRanks);

}  // namespace harmonize::sync
