#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "report/distribution.hpp"

using harmonize::report::Distribution;

namespace {

// Nearest-rank percentile of a sorted sample, the definition Distribution approximates.
double exact_percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  rank = std::clamp<std::size_t>(rank, 1, values.size());
  return values[rank - 1];
}

}  // namespace

TEST_CASE("an empty distribution reports zeros, never NaN", "[report][distribution]") {
  const Distribution d;
  CHECK(d.empty());
  CHECK(d.count() == 0);
  CHECK(d.sum() == 0.0);
  CHECK(d.mean() == 0.0);
  CHECK(d.min() == 0.0);
  CHECK(d.max() == 0.0);
  CHECK(d.percentile(50) == 0.0);
  CHECK(d.percentile(99) == 0.0);
}

TEST_CASE("one sample is every statistic exactly", "[report][distribution]") {
  Distribution d;
  d.add(1.234567e-6);
  CHECK(d.count() == 1);
  CHECK(d.sum() == 1.234567e-6);
  CHECK(d.mean() == 1.234567e-6);
  CHECK(d.min() == 1.234567e-6);
  CHECK(d.max() == 1.234567e-6);
  for (double p : {0.0, 1.0, 50.0, 90.0, 99.0, 100.0}) CHECK(d.percentile(p) == 1.234567e-6);
}

TEST_CASE("all-equal samples give that value for every percentile", "[report][distribution]") {
  Distribution d;
  for (int i = 0; i < 1000; ++i) d.add(3.7e-8);
  CHECK(d.count() == 1000);
  CHECK(d.min() == 3.7e-8);
  CHECK(d.max() == 3.7e-8);
  CHECK(d.percentile(50) == 3.7e-8);
  CHECK(d.percentile(90) == 3.7e-8);
  CHECK(d.percentile(99) == 3.7e-8);
  CHECK(d.mean() == Approx(3.7e-8).epsilon(1e-15));
}

TEST_CASE("sum, mean, min and max are exact for exactly representable samples",
          "[report][distribution]") {
  Distribution d;
  for (double v : {0.25, 0.5, 1.0, 2.0, 0.125}) d.add(v);
  CHECK(d.sum() == 3.875);
  CHECK(d.mean() == 3.875 / 5);
  CHECK(d.min() == 0.125);
  CHECK(d.max() == 2.0);
}

TEST_CASE("percentiles use the nearest-rank definition", "[report][distribution]") {
  Distribution d;
  // 1..100 microseconds: p50 is the 50th sample, p90 the 90th, p99 the 99th.
  for (int i = 1; i <= 100; ++i) d.add(i * 1e-6);
  CHECK(d.percentile(50) == Approx(50e-6).epsilon(0.01));
  CHECK(d.percentile(90) == Approx(90e-6).epsilon(0.01));
  CHECK(d.percentile(99) == Approx(99e-6).epsilon(0.01));
  CHECK(d.percentile(0) == 1 * 1e-6);
  CHECK(d.percentile(100) == 100 * 1e-6);  // exactly the sample added
}

TEST_CASE("percentiles are within 1 % from 1 ns to 100 s", "[report][distribution]") {
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> decade(-9.0, 2.0);  // log10 of 1 ns .. 100 s
  std::vector<double> values;
  Distribution d;
  for (int i = 0; i < 20000; ++i) {
    const double v = std::pow(10.0, decade(random));
    values.push_back(v);
    d.add(v);
  }
  for (double p : {1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9}) {
    const double truth = exact_percentile(values, p);
    INFO("p" << p << " truth " << truth << " got " << d.percentile(p));
    CHECK(std::fabs(d.percentile(p) - truth) <= 0.01 * truth);
  }
}

TEST_CASE("every bucket midpoint is within 1 % of the values it stands for",
          "[report][distribution]") {
  // Worst case is a value at the lower edge of a bucket: sweep exact bucket edges.
  for (double v = 1e-9; v <= 100.0; v *= 1.0 + 1.0 / 128.0) {
    Distribution d;
    d.add(v / 2);  // min and max must differ from v so no clamping hides the error
    d.add(v);
    d.add(v * 2);
    CHECK(std::fabs(d.percentile(50) - v) <= 0.01 * v);
  }
}

TEST_CASE("zero and negative values are ordered correctly", "[report][distribution]") {
  Distribution d;
  for (double v : {-2e-6, -1e-6, 0.0, 1e-6, 2e-6}) d.add(v);
  CHECK(d.min() == -2e-6);
  CHECK(d.max() == 2e-6);
  CHECK(d.sum() == Approx(0.0).margin(1e-21));
  CHECK(d.percentile(20) == -2e-6);  // rank 1 is the exact min
  CHECK(d.percentile(40) == Approx(-1e-6).epsilon(0.01));
  CHECK(d.percentile(60) == 0.0);
  CHECK(d.percentile(80) == Approx(1e-6).epsilon(0.01));
  CHECK(d.percentile(100) == 2e-6);
}

TEST_CASE("values outside the bucket range are clamped to min and max", "[report][distribution]") {
  Distribution d;
  d.add(1e-12);
  d.add(1e-12);
  d.add(1000.0);
  d.add(2000.0);
  CHECK(d.percentile(50) == 1e-12);   // near zero -> 0, clamped up to min
  CHECK(d.percentile(75) == 2000.0);  // overflow stands for max
  CHECK(d.max() == 2000.0);
}

TEST_CASE("non-finite samples are dropped", "[report][distribution]") {
  Distribution d;
  d.add(std::nan(""));
  d.add(INFINITY);
  d.add(1.0);
  CHECK(d.count() == 1);
  CHECK(d.sum() == 1.0);
}

TEST_CASE("merging equals adding all samples to one distribution", "[report][distribution]") {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> decade(-9.0, 0.0);
  Distribution all, a, b, c;
  for (int i = 0; i < 3000; ++i) {
    const double v = std::pow(10.0, decade(random)) * (i % 10 == 0 ? -1.0 : 1.0);
    all.add(v);
    (i % 3 == 0 ? a : i % 3 == 1 ? b : c).add(v);
  }
  Distribution merged;
  merged.merge(a);
  merged.merge(Distribution{});  // merging nothing changes nothing
  merged.merge(b);
  merged.merge(c);
  CHECK(merged.count() == all.count());
  CHECK(merged.min() == all.min());
  CHECK(merged.max() == all.max());
  CHECK(merged.sum() == Approx(all.sum()).epsilon(1e-14));
  for (double p : {1.0, 10.0, 50.0, 90.0, 99.0}) CHECK(merged.percentile(p) == all.percentile(p));
}

TEST_CASE("merging into an empty distribution copies it", "[report][distribution]") {
  Distribution a;
  a.add(-3.0);
  a.add(5.0);
  Distribution empty;
  empty.merge(a);
  CHECK(empty.min() == -3.0);
  CHECK(empty.max() == 5.0);
  CHECK(empty.sum() == 2.0);
}

TEST_CASE("memory stays bounded for 1e7 samples", "[report][distribution]") {
  Distribution d;
  for (int i = 0; i < 10'000'000; ++i) d.add(1e-9 * (1 + i % 100000));
  CHECK(d.count() == 10'000'000);
  // The encoding lists each non-empty bucket once, never each sample.
  CHECK(d.to_flat().size() <= 11 + 2 * Distribution::kBuckets);
}

TEST_CASE("the flat encoding round-trips exactly", "[report][distribution]") {
  Distribution d;
  for (double v : {-1e-3, 0.0, 2e-9, 5e-6, 1e3, 42.0}) d.add(v);
  const auto flat = d.to_flat();
  const auto back = Distribution::from_flat(flat);
  REQUIRE(back);
  CHECK(*back == d);
  CHECK(back->percentile(50) == d.percentile(50));

  const auto empty = Distribution::from_flat(Distribution{}.to_flat());
  REQUIRE(empty);
  CHECK(empty->empty());
}

TEST_CASE("several distributions pack into one vector", "[report][distribution]") {
  Distribution a, b;
  a.add(1.0);
  b.add(2.0);
  b.add(3.0);
  std::vector<double> flat;
  a.append_to(flat);
  b.append_to(flat);
  std::size_t offset = 0;
  const auto first = Distribution::read_from(flat, offset);
  const auto second = Distribution::read_from(flat, offset);
  REQUIRE(first);
  REQUIRE(second);
  CHECK(*first == a);
  CHECK(*second == b);
  CHECK(offset == flat.size());
}

TEST_CASE("malformed encodings are rejected", "[report][distribution]") {
  Distribution d;
  d.add(1e-6);
  auto flat = d.to_flat();
  CHECK_FALSE(Distribution::from_flat(std::vector<double>{}));
  CHECK_FALSE(Distribution::from_flat(std::span(flat).first(flat.size() - 1)));
  auto wrong_format = flat;
  wrong_format[0] = 99.0;
  CHECK_FALSE(Distribution::from_flat(wrong_format));
  auto wrong_count = flat;
  wrong_count[1] = 2.0;  // buckets hold 1 sample
  CHECK_FALSE(Distribution::from_flat(wrong_count));
  auto trailing = flat;
  trailing.push_back(0.0);
  CHECK_FALSE(Distribution::from_flat(trailing));
}
