#include "report/distribution.hpp"
#include "report/flat_count.hpp"

#include <algorithm>
#include <cmath>

namespace harmonize::report {

namespace {

// First element of the flat encoding; changes if the layout ever changes.
constexpr double kFlatFormat = 1.0;
constexpr std::size_t kFlatHeader = 11;

// Neumaier's variant of Kahan summation: also correct when the new term is
// larger than the running sum (merging a big distribution into a small one).
void compensated_add(double& sum, double& compensation, double value) {
  const double total = sum + value;
  if (std::fabs(sum) >= std::fabs(value)) {
    compensation += (sum - total) + value;
  } else {
    compensation += (value - total) + sum;
  }
  sum = total;
}

void append_sparse(std::vector<double>& out, const std::vector<std::uint64_t>& buckets,
                   std::size_t first) {
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (buckets[i] != 0) {
      out.push_back(static_cast<double>(first + i));
      out.push_back(static_cast<double>(buckets[i]));
    }
  }
}

std::size_t non_empty(const std::vector<std::uint64_t>& buckets) {
  return static_cast<std::size_t>(
      std::count_if(buckets.begin(), buckets.end(), [](std::uint64_t n) { return n != 0; }));
}

}  // namespace

std::optional<std::size_t> Distribution::bucket_of(double magnitude) {
  if (magnitude == 0.0) return std::nullopt;  // frexp(0) has no mantissa in [0.5, 1)
  int exponent = 0;
  const double mantissa = std::frexp(magnitude, &exponent);  // in [0.5, 1)
  if (exponent < kMinExponent) return std::nullopt;
  if (exponent > kMaxExponent) return kBuckets;
  const auto sub = static_cast<std::size_t>((mantissa * 2.0 - 1.0) * kSubBuckets);
  const auto octave = static_cast<std::size_t>(exponent - kMinExponent);
  return octave * kSubBuckets + std::min<std::size_t>(sub, kSubBuckets - 1);
}

double Distribution::bucket_midpoint(std::size_t index) {
  const int exponent = static_cast<int>(index / kSubBuckets) + kMinExponent;
  const double sub = static_cast<double>(index % kSubBuckets);
  return std::ldexp(0.5 + (sub + 0.5) / (2.0 * kSubBuckets), exponent);
}

void Distribution::add_to_bucket(bool negative, std::size_t index, std::uint64_t n) {
  // Only the span of buckets in use is stored: a collective's key holds
  // seven of these, and 20 KiB each made a report of 100 communicators
  // cost 1.5 GB on rank 0.
  auto& buckets = negative ? negative_ : positive_;
  std::size_t& first = negative ? negative_first_ : positive_first_;
  if (buckets.empty()) {
    first = index;
    buckets.assign(1, 0);
  } else if (index < first) {
    buckets.insert(buckets.begin(), first - index, 0);
    first = index;
  } else if (index >= first + buckets.size()) {
    buckets.resize(index - first + 1, 0);
  }
  buckets[index - first] += n;
}

void Distribution::add(double seconds) {
  // A NaN or infinite duration is a bug upstream; counting it would poison
  // sum and mean for the whole job, so it is dropped.
  if (!std::isfinite(seconds)) return;
  if (count_ == 0) {
    min_ = max_ = seconds;
  } else {
    min_ = std::min(min_, seconds);
    max_ = std::max(max_, seconds);
  }
  ++count_;
  compensated_add(sum_, sum_compensation_, seconds);

  const bool negative = seconds < 0.0;
  const auto index = bucket_of(std::fabs(seconds));
  if (!index) {
    ++near_zero_;
  } else if (*index == kBuckets) {
    ++(negative ? negative_overflow_ : positive_overflow_);
  } else {
    add_to_bucket(negative, *index, 1);
  }
}

void Distribution::merge(const Distribution& other) {
  if (other.count_ == 0) return;
  if (count_ == 0) {
    min_ = other.min_;
    max_ = other.max_;
  } else {
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }
  count_ += other.count_;
  compensated_add(sum_, sum_compensation_, other.sum_);
  compensated_add(sum_, sum_compensation_, other.sum_compensation_);
  near_zero_ += other.near_zero_;
  positive_overflow_ += other.positive_overflow_;
  negative_overflow_ += other.negative_overflow_;
  for (std::size_t i = 0; i < other.positive_.size(); ++i) {
    if (other.positive_[i] != 0)
      add_to_bucket(false, other.positive_first_ + i, other.positive_[i]);
  }
  for (std::size_t i = 0; i < other.negative_.size(); ++i) {
    if (other.negative_[i] != 0) add_to_bucket(true, other.negative_first_ + i, other.negative_[i]);
  }
}

double Distribution::mean() const {
  return count_ == 0 ? 0.0 : sum() / static_cast<double>(count_);
}

double Distribution::percentile(double p) const {
  if (count_ == 0) return 0.0;
  const double clamped_p = std::clamp(p, 0.0, 100.0);
  const auto rank =
      static_cast<std::uint64_t>(std::ceil(clamped_p / 100.0 * static_cast<double>(count_)));
  // The extremes are known exactly; no need to approximate them.
  if (rank <= 1) return min_;
  if (rank >= count_) return max_;

  // Walk the buckets in increasing value order until `rank` samples are seen.
  std::uint64_t seen = negative_overflow_;
  auto representative = [&](double value) { return std::clamp(value, min_, max_); };
  if (seen >= rank) return min_;
  for (std::size_t i = negative_.size(); i-- > 0;) {
    seen += negative_[i];
    if (seen >= rank) return representative(-bucket_midpoint(negative_first_ + i));
  }
  seen += near_zero_;
  if (seen >= rank) return representative(0.0);
  for (std::size_t i = 0; i < positive_.size(); ++i) {
    seen += positive_[i];
    if (seen >= rank) return representative(bucket_midpoint(positive_first_ + i));
  }
  return max_;  // the rest is positive overflow
}

void Distribution::append_to(std::vector<double>& out) const {
  const std::size_t positive_pairs = non_empty(positive_);
  const std::size_t negative_pairs = non_empty(negative_);
  out.reserve(out.size() + kFlatHeader + 2 * (positive_pairs + negative_pairs));
  out.insert(out.end(),
             {kFlatFormat, static_cast<double>(count_), sum_, sum_compensation_, min_, max_,
              static_cast<double>(near_zero_), static_cast<double>(positive_overflow_),
              static_cast<double>(negative_overflow_), static_cast<double>(positive_pairs),
              static_cast<double>(negative_pairs)});
  append_sparse(out, positive_, positive_first_);
  append_sparse(out, negative_, negative_first_);
}

std::vector<double> Distribution::to_flat() const {
  std::vector<double> out;
  append_to(out);
  return out;
}

std::optional<Distribution> Distribution::read_from(std::span<const double> in,
                                                    std::size_t& offset) {
  if (offset > in.size() || in.size() - offset < kFlatHeader) return std::nullopt;
  const auto h = in.subspan(offset, kFlatHeader);
  if (h[0] != kFlatFormat) return std::nullopt;
  for (std::size_t i : {1, 6, 7, 8, 9, 10}) {
    if (!is_count(h[i])) return std::nullopt;
  }
  const auto positive_pairs = static_cast<std::size_t>(h[9]);
  const auto negative_pairs = static_cast<std::size_t>(h[10]);
  if (positive_pairs > kBuckets || negative_pairs > kBuckets) return std::nullopt;
  const std::size_t length = kFlatHeader + 2 * (positive_pairs + negative_pairs);
  if (in.size() - offset < length) return std::nullopt;

  Distribution d;
  d.count_ = static_cast<std::uint64_t>(h[1]);
  d.sum_ = h[2];
  d.sum_compensation_ = h[3];
  d.min_ = h[4];
  d.max_ = h[5];
  d.near_zero_ = static_cast<std::uint64_t>(h[6]);
  d.positive_overflow_ = static_cast<std::uint64_t>(h[7]);
  d.negative_overflow_ = static_cast<std::uint64_t>(h[8]);
  std::uint64_t total = d.near_zero_ + d.positive_overflow_ + d.negative_overflow_;
  const auto pairs = in.subspan(offset + kFlatHeader, length - kFlatHeader);
  for (std::size_t k = 0; k < positive_pairs + negative_pairs; ++k) {
    const double index = pairs[2 * k];
    const double n = pairs[2 * k + 1];
    if (!is_count(index) || index >= static_cast<double>(kBuckets) || !is_count(n)) {
      return std::nullopt;
    }
    d.add_to_bucket(k >= positive_pairs, static_cast<std::size_t>(index),
                    static_cast<std::uint64_t>(n));
    total += static_cast<std::uint64_t>(n);
  }
  if (total != d.count_) return std::nullopt;
  offset += length;
  return d;
}

std::optional<Distribution> Distribution::from_flat(std::span<const double> in) {
  std::size_t offset = 0;
  auto d = read_from(in, offset);
  if (!d || offset != in.size()) return std::nullopt;
  return d;
}

}  // namespace harmonize::report
