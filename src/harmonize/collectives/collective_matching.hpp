#pragma once
// Matching the timed collective calls of one communicator across its members
// (docs/collectives.md): collective over the communicator, called where a
// program is not timing anything (the start of a barrier, MPI_Comm_free,
// MPI_Finalize).
#include <vector>

#include "clock/global_clock.hpp"
#include "harmonize/collectives/collective_timer.hpp"
#include "harmonize/trace/events.hpp"
#include "report/comm_stats.hpp"
#include "sync/collectives.hpp"

namespace harmonize::collectives {

// Matching is due on a communicator once it has seen this many calls since
// the last matching: the same count on every member of a correct program,
// so every member decides alike at the same barrier.
inline constexpr std::uint64_t kMatchBatch = 64;

// The i-th pending call of every member is the same call (collectives on one
// communicator are called in the same order by all of them). Every member
// adds its own time in each call and counts its calls left unmatched; rank
// 0 of the communicator adds the cross-member figures. Throws what the
// collectives throw (sync::MpiError on a user's communicator). With `trace`
// (HARMONIZE_TRACE) every call this process kept joins its timeline. With
// `interleaved` (HARMONIZE_INTERLEAVE), rank 0 appends there every matched
// call that carries a side's tag.
void match_collectives(sync::Collectives& members, const clock::GlobalClock& clock,
                       const PendingCalls& pending, report::CommStats& stats,
                       trace::CommTrace* trace = nullptr,
                       std::vector<report::MatchedCall>* interleaved = nullptr);

// The same for a communicator of one process (IMB's runs on one process,
// MPI_COMM_SELF): no skew, t_global is the call's own time; no communication.
void match_alone(const PendingCalls& pending, report::CommStats& stats,
                 std::vector<report::MatchedCall>* interleaved = nullptr);

}  // namespace harmonize::collectives
