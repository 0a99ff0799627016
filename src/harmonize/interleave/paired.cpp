#include "harmonize/interleave/paired.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace harmonize::interleave {

namespace {

// P(B = i) for B ~ Binomial(n, 1/2), from log-probabilities: exact to
// rounding for the millions of blocks a long run may hold.
double half_pmf(std::uint64_t n, std::uint64_t i) {
  return std::exp(
      std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
      std::lgamma(static_cast<double>(n - i) + 1) - static_cast<double>(n) * std::log(2.0));
}

}  // namespace

double binomial_half_cdf(std::uint64_t n, std::uint64_t k) {
  if (k >= n) return 1.0;
  double cdf = 0;
  for (std::uint64_t i = 0; i <= k; ++i) cdf += half_pmf(n, i);
  return std::min(cdf, 1.0);
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  const std::size_t half = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(half),
                   values.end());
  const double upper = values[half];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(half));
  return (lower + upper) / 2;
}

MedianInterval median_interval(std::vector<double> values, double alpha) {
  MedianInterval interval;
  interval.low = -std::numeric_limits<double>::infinity();
  interval.high = std::numeric_limits<double>::infinity();
  const std::uint64_t n = values.size();
  if (n == 0) return interval;
  std::sort(values.begin(), values.end());
  interval.median = median_of(values);
  // The largest k with P(B <= k - 1) <= alpha / 2: then the k-th smallest
  // and the k-th largest bound the median with probability at least
  // 1 - 2 P(B <= k - 1). The CDF grows with k, so walk up until it exceeds.
  std::uint64_t k = 0;
  double cdf = 0;
  for (std::uint64_t i = 0; i < n / 2; ++i) {
    cdf += half_pmf(n, i);
    if (cdf > alpha / 2) break;
    k = i + 1;
  }
  if (k == 0) return interval;
  interval.exists = true;
  interval.low = values[k - 1];
  interval.high = values[n - k];
  return interval;
}

std::vector<PairedComparison> compare_sides(std::span<const SideCall> calls, int sides,
                                            double alpha) {
  // Per block, per side: the sum and the count of its calls.
  struct Sum {
    double sum = 0;
    std::uint64_t count = 0;
  };
  std::map<std::uint64_t, std::vector<Sum>> blocks;
  std::vector<std::vector<double>> per_side(static_cast<std::size_t>(sides));
  for (const SideCall& call : calls) {
    if (call.side < 0 || call.side >= sides) continue;
    std::vector<Sum>& block = blocks[call.block];
    block.resize(static_cast<std::size_t>(sides));
    block[static_cast<std::size_t>(call.side)].sum += call.value;
    block[static_cast<std::size_t>(call.side)].count += 1;
    per_side[static_cast<std::size_t>(call.side)].push_back(call.value);
  }
  std::vector<PairedComparison> comparisons;
  for (int side = 1; side < sides; ++side) {
    PairedComparison comparison;
    comparison.side = side;
    std::vector<double> differences;
    for (const auto& [index, block] : blocks) {
      const Sum& mine = block[static_cast<std::size_t>(side)];
      const Sum& base = block[0];
      if (mine.count == 0 || base.count == 0) continue;
      const double difference =
          mine.sum / static_cast<double>(mine.count) - base.sum / static_cast<double>(base.count);
      differences.push_back(difference);
      comparison.positive += difference > 0 ? 1 : 0;
      comparison.negative += difference < 0 ? 1 : 0;
    }
    comparison.blocks = differences.size();
    comparison.delta = median_interval(std::move(differences), alpha);
    comparison.calls = per_side[static_cast<std::size_t>(side)].size();
    comparison.baseline_calls = per_side[0].size();
    comparison.median = median_of(per_side[static_cast<std::size_t>(side)]);
    comparison.baseline_median = median_of(per_side[0]);
    comparisons.push_back(comparison);
  }
  return comparisons;
}

}  // namespace harmonize::interleave
