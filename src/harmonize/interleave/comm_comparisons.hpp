#pragma once
// One communicator's interleaved comparisons: its rank 0's matched calls that
// carry a side's tag, grouped by key (operation, bytes, root), each side
// paired with the baseline on two figures. Pure.
#include <cstdint>
#include <span>
#include <vector>

#include "harmonize/interleave/paired.hpp"
#include "report/collective_stats.hpp"

namespace harmonize::interleave {

// What is compared: t_global (max exit - min entry, the collective as the
// job sees it) and the longest member's own time (IMB's t_max; OSU prints
// the members' average, which the per-call maxima bound).
enum class Figure : std::uint8_t { t_global, local_max };
inline constexpr const char* kFigureNames[] = {"t_global", "local_max"};

struct KeyComparison {
  report::CollectiveKey key;
  Figure figure = Figure::t_global;
  PairedComparison paired;
};

// How many comparisons `calls` hold: keys x (sides - 1) x figures (the
// family the level is divided among).
std::uint64_t comparisons_in(std::span<const report::MatchedCall> calls, int sides);

// `sides`, `run`, `seed`: the schedule the tags were drawn from; each
// interval at 1 - alpha.
std::vector<KeyComparison> compare_calls(std::span<const report::MatchedCall> calls, int sides,
                                         int run, std::uint64_t seed, double alpha);

}  // namespace harmonize::interleave
