#include "clock/test_clock.hpp"

namespace harmonize::clock {
namespace {

// splitmix64: tiny, good enough statistically, and identical everywhere,
// which is what matters (every rank must derive the same skews).
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// In [-1, 1], from the top 53 bits.
double symmetric_unit(std::uint64_t bits) {
  const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;
  return 2.0 * unit - 1.0;
}

}  // namespace

bool test_clock_active(const TestClockSpec& spec) {
  return spec.max_offset != 0 || spec.max_drift != 0;
}

Skew skew_for_node(const TestClockSpec& spec, int node) {
  const std::uint64_t key = splitmix64(spec.seed) ^ static_cast<std::uint64_t>(node);
  const std::uint64_t a = splitmix64(key);
  const std::uint64_t b = splitmix64(a);
  return Skew{spec.max_offset * symmetric_unit(a), spec.max_drift * symmetric_unit(b)};
}

int virtual_node_of(const TestClockSpec& spec, int world_rank) {
  return spec.node_size <= 0 ? world_rank : world_rank / spec.node_size;
}

}  // namespace harmonize::clock
