#pragma once
// Streaming distribution of durations in seconds: exact count/sum/min/max,
// percentiles from a log-linear histogram. Memory is bounded (at most a fixed
// number of buckets, only the span in use stored, per sign) whatever the
// number of samples.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace harmonize::report {

class Distribution {
 public:
  // Each power of two is split into this many equal buckets: a bucket spans at
  // most 1/64 of its lower bound, so its midpoint is within 0.8 % of any value in it.
  static constexpr int kSubBuckets = 64;
  // Octaves covered by buckets: |v| in [2^(kMinExponent-1), 2^kMaxExponent), i.e.
  // about 0.23 ns .. 256 s, which contains the specified range 1 ns .. 100 s.
  static constexpr int kMinExponent = -31;
  static constexpr int kMaxExponent = 8;
  static constexpr std::size_t kBuckets =
      static_cast<std::size_t>(kMaxExponent - kMinExponent + 1) * kSubBuckets;

  void add(double seconds);
  void merge(const Distribution& other);

  [[nodiscard]] std::uint64_t count() const { return count_; }
  [[nodiscard]] bool empty() const { return count_ == 0; }
  [[nodiscard]] double sum() const { return sum_ + sum_compensation_; }
  // 0 for an empty distribution (so reports never carry NaN).
  [[nodiscard]] double mean() const;
  [[nodiscard]] double min() const { return count_ == 0 ? 0.0 : min_; }
  [[nodiscard]] double max() const { return count_ == 0 ? 0.0 : max_; }
  // Nearest-rank percentile, p in [0, 100]: the value of rank ceil(p/100 * n).
  // Exact for min/max and when all samples are equal; otherwise within 0.8 %
  // of the true sample for |values| in [1 ns, 100 s]. Magnitudes below ~0.23 ns
  // are reported as 0 and above 256 s as max(): the result is always clamped to
  // [min, max]. 0 for an empty distribution.
  [[nodiscard]] double percentile(double p) const;

  // The positive buckets in use: bucket `positive_first() + i` holds
  // positive_counts()[i] samples (bucket_midpoint names its value); samples
  // below the first bucket (near_zero) and above the last (positive_overflow)
  // apart. Lets a reader pool the histograms of several runs.
  [[nodiscard]] std::size_t positive_first() const { return positive_first_; }
  [[nodiscard]] const std::vector<std::uint64_t>& positive_counts() const { return positive_; }
  [[nodiscard]] std::uint64_t near_zero() const { return near_zero_; }
  [[nodiscard]] std::uint64_t positive_overflow() const { return positive_overflow_; }

  // Flat encoding for sending between ranks; only non-empty buckets are stored,
  // so the length varies. append_to() can pack several distributions into one
  // vector; read_from() reads one at `offset` and advances it, or returns
  // nullopt (offset untouched) if the data is malformed.
  void append_to(std::vector<double>& out) const;
  [[nodiscard]] std::vector<double> to_flat() const;
  static std::optional<Distribution> read_from(std::span<const double> in, std::size_t& offset);
  static std::optional<Distribution> from_flat(std::span<const double> in);

  friend bool operator==(const Distribution&, const Distribution&) = default;

 private:
  // Index of a positive, finite magnitude inside the bucket range, or
  // nullopt below (counted as zero) / kBuckets above it (overflow).
  static std::optional<std::size_t> bucket_of(double magnitude);
  static double bucket_midpoint(std::size_t index);
  void add_to_bucket(bool negative, std::size_t index, std::uint64_t n);

  std::uint64_t count_ = 0;
  // Neumaier-compensated sum: merging in a different order than adding
  // one by one gives the same sum for all practical purposes.
  double sum_ = 0.0;
  double sum_compensation_ = 0.0;
  double min_ = 0.0;
  double max_ = 0.0;
  std::uint64_t near_zero_ = 0;  // |v| below the first bucket, either sign
  std::uint64_t positive_overflow_ = 0;
  std::uint64_t negative_overflow_ = 0;
  // The buckets from the first to the last in use (index first_ + i), empty
  // until a sample of that sign arrives.
  std::vector<std::uint64_t> positive_;
  std::vector<std::uint64_t> negative_;  // lateness can be negative (early)
  std::size_t positive_first_ = 0;
  std::size_t negative_first_ = 0;
};

}  // namespace harmonize::report
