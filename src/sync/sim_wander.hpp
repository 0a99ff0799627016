#pragma once
// A deterministic random walk: the same (seed, node) gives the same path in
// every process that evaluates it (pure apart from a cache).
#include <cstdint>
#include <vector>

namespace harmonize::sync::simulator {

class WanderPath {
 public:
  WanderPath(std::uint64_t seed, int node, double sigma_per_sqrt_second, double start);
  // Offset added at true time `t` (0 at and before `start`); piecewise linear
  // between steps of 10 ms.
  double at(double t) const;

 private:
  double step_value(std::size_t index) const;
  std::uint64_t key_;
  double step_sigma_;
  double start_;
  mutable std::vector<double> cumulative_{0.0};
};

std::uint64_t mix64(std::uint64_t x);
double unit_from_bits(std::uint64_t bits);  // in (0, 1)

}  // namespace harmonize::sync::simulator
