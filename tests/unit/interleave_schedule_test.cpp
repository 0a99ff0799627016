// The interleaved sides' schedule (harmonize/interleave/schedule.hpp),
// exactly: alike wherever it is computed, balanced in every block, each side
// a run of calls, the orders random across blocks.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "harmonize/interleave/schedule.hpp"

using namespace harmonize::interleave;

namespace {

std::vector<int> sides_of(Schedule& schedule, std::uint64_t first, std::uint64_t count) {
  std::vector<int> sides;
  for (std::uint64_t call = first; call < first + count; ++call)
    sides.push_back(schedule.side_of(call));
  return sides;
}

}  // namespace

TEST_CASE("splitmix64 is the published generator", "[interleave]") {
  // The reference implementation's first outputs from state 0.
  std::uint64_t state = 0;
  CHECK(splitmix64(state) == 0xe220a8397b1dcdafULL);
  CHECK(splitmix64(state) == 0x6e789e6aa1b965f4ULL);
}

TEST_CASE("every rank computes the same schedule, whatever it asked before", "[interleave]") {
  Schedule in_order(3, 4, 42), backwards(3, 4, 42);
  const std::vector<int> forward = sides_of(in_order, 0, 1200);
  std::vector<int> reversed(1200);
  for (std::uint64_t call = 1200; call-- > 0;) reversed[call] = backwards.side_of(call);
  CHECK(forward == reversed);
  Schedule other_seed(3, 4, 43);
  CHECK(sides_of(other_seed, 0, 1200) != forward);
}

TEST_CASE("each block runs every side the same number of calls, in runs", "[interleave]") {
  for (const auto& [sides, run] : {std::pair{2, 1}, {2, 8}, {3, 4}, {5, 1}}) {
    Schedule schedule(sides, run, 7);
    const auto block = static_cast<std::uint64_t>(sides * run);
    for (std::uint64_t b = 0; b < 200; ++b) {
      const std::vector<int> calls = sides_of(schedule, b * block, block);
      std::vector<int> count(static_cast<std::size_t>(sides));
      for (int side : calls) count[static_cast<std::size_t>(side)] += 1;
      CHECK(count == std::vector<int>(static_cast<std::size_t>(sides), run));
      for (std::size_t i = 0; i < calls.size(); i += static_cast<std::size_t>(run))
        for (std::size_t k = 1; k < static_cast<std::size_t>(run); ++k)
          CHECK(calls[i + k] == calls[i]);
      CHECK(schedule.block_of(b * block + block - 1) == b);
    }
  }
}

TEST_CASE("the order of the sides is random across blocks", "[interleave]") {
  // Two sides: which goes first is a fair coin per block. 4 000 blocks: the
  // count is 2 000 +- 63 (1 sigma); a fixed order would give 0 or 4 000, an
  // alternation exactly 2 000 with no run longer than 1.
  Schedule schedule(2, 1, 1);
  int first_a = 0, longest = 0, same = 0, previous = -1;
  for (std::uint64_t b = 0; b < 4000; ++b) {
    const int first = schedule.side_of(2 * b);
    first_a += first == 0;
    same = first == previous ? same + 1 : 1;
    longest = std::max(longest, same);
    previous = first;
  }
  CHECK(first_a > 1800);
  CHECK(first_a < 2200);
  CHECK(longest >= 6);  // runs of equal firsts exist (P(max run < 6) ~ 1e-25)
  // Three sides: all six orders appear.
  Schedule three(3, 1, 1);
  std::vector<int> seen(27);
  for (std::uint64_t b = 0; b < 600; ++b) {
    const std::vector<int> order = sides_of(three, 3 * b, 3);
    seen[static_cast<std::size_t>(order[0] * 9 + order[1] * 3 + order[2])] += 1;
  }
  int orders = 0;
  for (int n : seen) orders += n > 0;
  CHECK(orders == 6);
}

TEST_CASE("one side, or nonsense sizes, give a schedule of one side", "[interleave]") {
  Schedule one(1, 1, 3);
  CHECK(sides_of(one, 0, 10) == std::vector<int>(10, 0));
  Schedule clamped(0, 0, 3);
  CHECK(clamped.sides() == 1);
  CHECK(clamped.run() == 1);
  CHECK(clamped.side_of(5) == 0);
}
