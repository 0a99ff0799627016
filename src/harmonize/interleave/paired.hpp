#pragma once
// The paired comparison of interleaved sides (docs/interleave.md): each side
// against the baseline (side 0) block by block, where a block holds every
// side's calls within microseconds of each other. Pure, exact-tested.
//
// Why the sign test: the schedule draws each block's order of the sides at
// random, so when two sides do not differ (A/A) the difference of a block is
// as likely one sign as the other whatever the machine did during the run
// (drifts, speed states, a neighbour's load); the number of positive
// differences is then Binomial(n, 1/2) exactly, and the interval below holds
// its level without assuming anything of the distribution of the times.
#include <cstdint>
#include <span>
#include <vector>

namespace harmonize::interleave {

// P(B <= k) for B ~ Binomial(n, 1/2).
double binomial_half_cdf(std::uint64_t n, std::uint64_t k);

// The distribution-free interval of the median of `values` (the order
// statistics whose ranks the sign test gives) at confidence at least
// 1 - alpha, two-sided. `exists` is false when there are too few values
// for any interval at that level (then low/high are -inf/+inf).
struct MedianInterval {
  double median = 0;
  double low = 0;
  double high = 0;
  bool exists = false;
};
MedianInterval median_interval(std::vector<double> values, double alpha);

double median_of(std::vector<double> values);  // 0 for none

// One timed call of a side: its block and the figure compared.
struct SideCall {
  std::uint64_t block = 0;
  int side = 0;
  double value = 0;
};

// A side against the baseline: the median of the blocks' differences (the
// side's mean in the block less the baseline's), its interval, and each
// side's calls and median over the whole run.
struct PairedComparison {
  int side = 1;
  std::uint64_t blocks = 0;  // blocks where both sides have calls
  // Blocks whose difference is above and below zero: the sign test's counts,
  // which runs can pool (harmonize-ab --interleave --until-decided).
  std::uint64_t positive = 0, negative = 0;
  MedianInterval delta;
  std::uint64_t calls = 0, baseline_calls = 0;
  double median = 0, baseline_median = 0;
  // The interval excludes zero: the sides differ, at the level asked.
  bool decided() const { return delta.exists && (delta.low > 0 || delta.high < 0); }
};

// Sides 1..sides-1 against side 0, each interval at 1 - alpha.
std::vector<PairedComparison> compare_sides(std::span<const SideCall> calls, int sides,
                                            double alpha);

}  // namespace harmonize::interleave
