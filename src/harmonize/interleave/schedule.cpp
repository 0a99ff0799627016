#include "harmonize/interleave/schedule.hpp"

#include <numeric>
#include <utility>

namespace harmonize::interleave {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

Schedule::Schedule(int sides, int run, std::uint64_t seed)
    : seed_(seed),
      run_(static_cast<std::uint64_t>(run < 1 ? 1 : run)),
      block_calls_(run_ * static_cast<std::uint64_t>(sides < 1 ? 1 : sides)),
      order_(static_cast<std::size_t>(sides < 1 ? 1 : sides)) {}

void Schedule::draw(std::uint64_t block) {
  // Fisher-Yates on a stream seeded by the seed and the block alone: the
  // order of a block never depends on which calls were asked for before.
  std::uint64_t state = seed_ ^ (block * 0xd1342543de82ef95ULL);
  std::iota(order_.begin(), order_.end(), 0);
  for (std::size_t i = order_.size(); i > 1; --i) {
    // Modulo bias below 1e-17 for a handful of sides.
    const auto j = static_cast<std::size_t>(splitmix64(state) % i);
    std::swap(order_[i - 1], order_[j]);
  }
  block_ = block;
}

}  // namespace harmonize::interleave
