#include "sync/sim_wander.hpp"

#include <cmath>
#include <numbers>

#include "common/splitmix.hpp"

namespace harmonize::sync::simulator {
namespace {
constexpr double kStep = 0.01;
}

std::uint64_t mix64(std::uint64_t x) {
  return splitmix64(x);
}

double unit_from_bits(std::uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53;
}

WanderPath::WanderPath(std::uint64_t seed, int node, double sigma_per_sqrt_second, double start)
    : key_(mix64(seed ^ (0x5157ULL << 32) ^ static_cast<std::uint64_t>(node))),
      step_sigma_(sigma_per_sqrt_second * std::sqrt(kStep)),
      start_(start) {}

double WanderPath::step_value(std::size_t index) const {
  while (cumulative_.size() <= index) {
    // Box-Muller from two hashed uniforms of this step.
    const std::uint64_t a = mix64(key_ + 2 * cumulative_.size());
    const std::uint64_t b = mix64(key_ + 2 * cumulative_.size() + 1);
    const double gauss = std::sqrt(-2.0 * std::log(unit_from_bits(a))) *
                         std::cos(2.0 * std::numbers::pi * unit_from_bits(b));
    cumulative_.push_back(cumulative_.back() + step_sigma_ * gauss);
  }
  return cumulative_[index];
}

double WanderPath::at(double t) const {
  if (step_sigma_ == 0 || t <= start_) return 0.0;
  const double steps = (t - start_) / kStep;
  const auto index = static_cast<std::size_t>(steps);
  const double fraction = steps - static_cast<double>(index);
  const double a = step_value(index);
  const double b = step_value(index + 1);
  return a + (b - a) * fraction;
}

}  // namespace harmonize::sync::simulator
