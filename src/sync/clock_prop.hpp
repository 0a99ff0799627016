#pragma once
// ClockPropSync (paper 001 Alg. 3): copy rank 0's model stack to the group.
// Valid only where the whole group reads one time source (one node, or one
// virtual node of the test clocks).
#include "clock/global_clock.hpp"
#include "sync/transport.hpp"

namespace harmonize::sync {

// Collective. Returns `mine`'s source seen through rank 0's models. The two
// broadcasts of the paper (size, then bytes) are one Transport::broadcast.
clock::GlobalClock run_clock_prop(Transport& group, const clock::GlobalClock& mine);

}  // namespace harmonize::sync
