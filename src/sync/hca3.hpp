#pragma once
// HCA3 (paper 001 Alg. 1 and 2) over any group size.
#include "clock/global_clock.hpp"
#include "sync/pair_history.hpp"
#include "sync/settings.hpp"
#include "sync/transport.hpp"

namespace harmonize::sync {

// ceil(log2(p)): the binomial rounds plus one for the ranks beyond the
// largest power of two (0 for p <= 1).
int hca3_rounds(int processes);

// Collective over `group`. Rank 0's `mine` is the reference; every other rank
// returns `mine` with one more model level that maps it to rank 0's clock,
// and that clock's error bound against the world reference (rank 0 keeps
// `mine`'s: zero for world rank 0's raw clock, the world clock's bound for
// the rank 0 of a sub-communicator). See docs/clock-error.md.
// `history` belongs to this process's (fixed) pair; pass the same object on
// every call with the same group to refine the drift.
clock::GlobalClock run_hca3(Transport& group, const clock::GlobalClock& mine,
                            const Settings& settings, PairHistory& history);

}  // namespace harmonize::sync
