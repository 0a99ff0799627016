#pragma once
// A user communicator as the features see it: what the session made for it
// at its first barrier (its members' collectives and its clock), where its
// timed calls are counted, and its timeline.
#include <mpi.h>

#include <vector>

#include "clock/global_clock.hpp"
#include "harmonize/logic/record_store.hpp"
#include "harmonize/trace/events.hpp"
#include "report/comm_stats.hpp"
#include "sync/collectives.hpp"

namespace harmonize::interleave {
struct CommSides;  // HARMONIZE_INTERLEAVE's, for its feature alone
}  // namespace harmonize::interleave

namespace harmonize::feature {

struct CommView {
  MPI_Comm user = MPI_COMM_NULL;
  logic::CommKind kind = logic::CommKind::intra;
  // An intracommunicator's members and clock; null when its barrier was
  // given up on (its calls are never matched).
  sync::Collectives* members = nullptr;
  const clock::GlobalClock* clock = nullptr;
  report::CommStats* timed = nullptr;  // where its matched calls are added
  trace::CommTrace* trace = nullptr;   // HARMONIZE_TRACE: its timeline, else null
  // HARMONIZE_INTERLEAVE: where rank 0 keeps its matched calls that carry a
  // side's tag, else null.
  std::vector<report::MatchedCall>* interleaved = nullptr;
  interleave::CommSides* sides = nullptr;  // and its schedule
};

}  // namespace harmonize::feature
