#pragma once
// Which side of an interleaved comparison runs each call of a communicator
// (docs/interleave.md): randomised blocks. A block is `sides x run` calls, a
// random permutation of the sides, each side `run` calls in a row; every side
// runs equally often in every block, so a run's speed state, the ranks'
// placement and warm caches are shared by the sides and cancel in their
// paired difference. The side of a call is a function of the seed and the
// call's index only: every rank computes the same schedule without a message.
// Pure, exact-tested.
#include <cstdint>
#include <vector>

namespace harmonize::interleave {

// One step of splitmix64 (Steele, Lea, Flood 2014): the block's random
// stream, the same on every platform.
std::uint64_t splitmix64(std::uint64_t& state);

class Schedule {
 public:
  // `sides` >= 1, `run` >= 1 calls per side and block.
  Schedule(int sides, int run, std::uint64_t seed);

  // The side (0-based) of the communicator's `call`-th call (0-based). A
  // lookup into the current block's order; a new block's order is drawn
  // once, when its first call is asked for.
  int side_of(std::uint64_t call) {
    const std::uint64_t block = call / block_calls_;
    if (block != block_) draw(block);
    return order_[static_cast<std::size_t>((call % block_calls_) / run_)];
  }
  // The block of `call`: the unit of the paired comparison.
  std::uint64_t block_of(std::uint64_t call) const { return call / block_calls_; }
  int sides() const { return static_cast<int>(order_.size()); }
  int run() const { return static_cast<int>(run_); }

 private:
  void draw(std::uint64_t block);

  std::uint64_t seed_;
  std::uint64_t run_;
  std::uint64_t block_calls_;
  std::uint64_t block_ = UINT64_MAX;
  std::vector<int> order_;
};

}  // namespace harmonize::interleave
