#include "harmonize/collectives/mpi/timed_collectives.hpp"

#include "harmonize/collectives/collective_matching.hpp"

namespace harmonize::collectives {

void TimedCollectives::match(const MatchedComm& comm, bool all_left) {
  if (comm.kind == logic::CommKind::inter) {
    // Never matched (the two groups are not one set of members), but
    // counted where they were called: on the intercommunicators' record,
    // not as calls MPI_COMM_WORLD lost.
    comm.timed->collective_calls_unmatched += drop(comm.user);
    return;
  }
  const bool alone = comm.kind == logic::CommKind::self;
  if (comm.members == nullptr && !alone) return;  // given up on: not matched
  if (!all_left && calls_seen(comm.user) < kMatchBatch) return;
  if (alone) {
    match_alone(timer_.take(comm_id(comm.user)), *comm.timed);
  } else {
    match_collectives(*comm.members, *comm.clock, timer_.take(comm_id(comm.user)), *comm.timed,
                      comm.trace);
  }
}

Leftovers TimedCollectives::leftovers() {
  // Communicators that never had a barrier (nobody agreed on a matching),
  // or were freed before one, and the process's spills.
  Leftovers left{timer_.forgotten(), timer_.forgotten_inter(), timer_.spills()};
  for (const PendingCalls& pending : timer_.take_all())
    (pending.inter ? left.inter_unmatched : left.unmatched) += pending.calls_seen;
  return left;
}

}  // namespace harmonize::collectives
