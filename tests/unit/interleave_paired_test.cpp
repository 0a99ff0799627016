// The paired comparison of interleaved sides (harmonize/interleave/paired.hpp):
// the binomial tail and the median's order-statistic interval exactly, and
// the false-decision rate of A/A comparisons on a drifting machine, which
// the randomised schedule keeps at its level while a fixed order does not.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "harmonize/interleave/paired.hpp"
#include "harmonize/interleave/schedule.hpp"

using namespace harmonize::interleave;

TEST_CASE("the binomial tail of a fair coin", "[interleave]") {
  CHECK(binomial_half_cdf(4, 0) == Approx(1.0 / 16));
  CHECK(binomial_half_cdf(4, 1) == Approx(5.0 / 16));
  CHECK(binomial_half_cdf(10, 1) == Approx(11.0 / 1024));
  CHECK(binomial_half_cdf(10, 2) == Approx(56.0 / 1024));
  CHECK(binomial_half_cdf(3, 3) == 1.0);
  // Large n: symmetric about n/2.
  CHECK(binomial_half_cdf(100001, 50000) == Approx(0.5));
}

TEST_CASE("the median's interval takes the order statistics the sign test gives", "[interleave]") {
  std::vector<double> ten;
  for (int i = 10; i >= 1; --i) ten.push_back(i);
  // P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024: the 2nd smallest
  // and the 2nd largest.
  const MedianInterval at_95 = median_interval(ten, 0.05);
  CHECK(at_95.exists);
  CHECK(at_95.median == 5.5);
  CHECK(at_95.low == 2);
  CHECK(at_95.high == 9);
  // At 1 %: P(B <= 0) = 1/1024 <= 0.005 < P(B <= 1): the extremes.
  const MedianInterval at_99 = median_interval(ten, 0.01);
  CHECK(at_99.low == 1);
  CHECK(at_99.high == 10);
  // Five values cannot bound the median at 95 % (2 / 32 > 0.05); six can.
  CHECK_FALSE(median_interval({1, 2, 3, 4, 5}, 0.05).exists);
  const MedianInterval six = median_interval({6, 1, 5, 2, 4, 3}, 0.05);
  CHECK(six.exists);
  CHECK(six.low == 1);
  CHECK(six.high == 6);
  CHECK_FALSE(median_interval({}, 0.05).exists);
}

TEST_CASE("a side's difference is paired block by block", "[interleave]") {
  // Three blocks at very different speeds; side 1 is always 3 slower, side
  // 2 the same as side 0.
  std::vector<SideCall> calls;
  const double speed[] = {10, 100, 1000, 20, 200, 2000, 30, 300};
  for (std::uint64_t block = 0; block < 8; ++block) {
    calls.push_back({block, 0, speed[block]});
    calls.push_back({block, 1, speed[block] + 3});
    calls.push_back({block, 2, speed[block]});
  }
  calls.push_back({99, 1, 5});  // a block without its baseline: unpaired
  const std::vector<PairedComparison> result = compare_sides(calls, 3, 0.05);
  REQUIRE(result.size() == 2);
  CHECK(result[0].side == 1);
  CHECK(result[0].blocks == 8);
  CHECK(result[0].positive == 8);
  CHECK(result[0].negative == 0);
  CHECK(result[0].delta.median == 3);
  CHECK(result[0].delta.low == 3);
  CHECK(result[0].decided());
  CHECK(result[0].calls == 9);
  CHECK(result[0].baseline_calls == 8);
  CHECK(result[1].delta.median == 0);
  CHECK(result[1].positive + result[1].negative == 0);  // ties count neither way
  CHECK_FALSE(result[1].decided());
}

namespace {

// One A/A run on a machine that drifts and jumps between speed states, each
// call's time heavy-tailed: whether any of `sizes` comparisons decides at
// the family-wise level. The second call of a pair runs a little slower (a
// cache the first one warmed for the program's own work, say). `randomised`:
// the library's schedule; otherwise side 0 always runs first in a block.
bool aa_run_decides(std::uint64_t seed, bool randomised, int sizes) {
  std::uint64_t noise = seed * 7919 + 1;
  const auto uniform = [&noise] { return (splitmix64(noise) >> 11) * 0x1.0p-53; };
  Schedule schedule(2, 1, seed);
  const double alpha = 0.05 / sizes;
  double state = 1.0;
  std::uint64_t call = 0;
  for (int size = 0; size < sizes; ++size) {
    std::vector<SideCall> calls;
    for (int i = 0; i < 400; ++i, ++call) {
      if (uniform() < 0.01) state = uniform() < 0.5 ? 1.0 : 2.5;  // a speed state
      const double drift = 1e-3 * static_cast<double>(i);
      const double tail = uniform() < 0.02 ? 50 * uniform() : 0;  // a preemption
      const int side = randomised ? schedule.side_of(call) : static_cast<int>(call % 2);
      const double second = call % 2 == 1 ? 0.05 : 0.0;
      calls.push_back({call / 2, side, state + drift + second + 0.1 * uniform() + tail});
    }
    for (const PairedComparison& comparison : compare_sides(calls, 2, alpha))
      if (comparison.decided()) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("A/A comparisons decide at most at their stated family-wise level", "[interleave]") {
  // 8 sizes a run, 5 % family-wise: the sign test is exact under the
  // schedule's random orders, whatever the machine does.
  int randomised = 0, fixed_order = 0;
  constexpr int kRuns = 400;
  for (std::uint64_t seed = 1; seed <= kRuns; ++seed) {
    randomised += aa_run_decides(seed, true, 8) ? 1 : 0;
    fixed_order += aa_run_decides(seed, false, 8) ? 1 : 0;
  }
  INFO("randomised " << randomised << " / " << kRuns << ", fixed order " << fixed_order);
  CHECK(randomised <= kRuns * 5 / 100);
  // With a fixed order the slower position is always one side's: the test
  // tells a design that is not valid.
  CHECK(fixed_order > kRuns / 2);
}
