#include "clock/test_clock.hpp"

#include "common/splitmix.hpp"

namespace harmonize::clock {
namespace {

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

// Keyed by world rank per process: without node_size the two scopes give
// every rank the same skew, and differ only in what the sync takes for nodes.
Skew skew_of_rank(const TestClockSpec& spec, int world_rank) {
  if (spec.per_process) return skew_for_node(spec, world_rank);
  if (spec.per_host)
    return skew_for_node(spec, spec.host_of_rank.at(static_cast<std::size_t>(world_rank)));
  return skew_for_node(spec, virtual_node_of(spec, world_rank));
}

bool uses_virtual_nodes(const TestClockSpec& spec) {
  return spec.node_size > 0 || (test_clock_active(spec) && !spec.per_process && !spec.per_host);
}

}  // namespace harmonize::clock
