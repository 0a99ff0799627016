#include "harmonize/collectives/mpi/timed_collectives.hpp"

#include "harmonize/collectives/collective_matching.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize::collectives {

std::unique_ptr<feature::Feature> TimedCollectives::make(const feature::JobContext& job) {
  if (job.policy.collectives == kNoCollectives) return nullptr;
  return std::make_unique<TimedCollectives>(clock::TickStamp(job.local), job.policy.collectives,
                                            job.thread_multiple);
}

void TimedCollectives::barrier_entering(const feature::BarrierEntry& entry) {
  // A barrier under test timed is the operation the last harmonized barrier
  // was for (its record takes the token); untimed, it ends that barrier's
  // pattern all the same.
  if (!(entry.view && entry.under_test && measures_barrier()))
    timer_.barrier_left(comm_id(entry.comm), false, 0);
  // Before the barrier's entry: nothing the program times is disturbed
  // (except a barrier under test, which starts where the pattern was set).
  if (entry.view && !entry.under_test) match(*entry.view, false);
}

int TimedCollectives::measure_barrier(MPI_Comm comm, const feature::BarrierBody& barrier) {
  const double entry = timer_.now();
  const int status = barrier();
  timer_.add({.entry = entry,
              .exit = timer_.now(),
              .comm = comm_id(comm),
              .operation = Collective::barrier});
  return status;
}

void TimedCollectives::comm_freeing(MPI_Comm comm, feature::CommView* view) {
  try {
    if (view) match(*view, true);
  } catch (const sync::MpiError&) {
    // A failed matching: MPI has reported it through the user's handler;
    // the free goes on.
  }
  forget(comm);  // a communicator that never had a barrier: counted
}

void TimedCollectives::finishing(feature::Finishing& at) {
  // A program without a single barrier still has its world's calls matched
  // (every process is here: making the view is collective).
  if (calls_seen(MPI_COMM_WORLD) > 0) at.world(true);
  // Every member holds the same communicators: matched in the same order.
  for (feature::CommView* view : at.alive()) {
    try {
      match(*view, true);
    } catch (const sync::MpiError&) {
      // MPI has reported it through the user's handler; the rest can go on.
    }
  }
  const Leftovers left = leftovers();
  if (feature::CommView* world = at.world(false)) {
    world->timed->collective_calls_unmatched += left.unmatched;
    world->timed->collective_log_spills += left.spills;
  }
  if (left.inter_unmatched > 0) {
    // After the intercommunicators that had a barrier, whose record names
    // the aggregate's size; these had none (or were freed without one).
    logic::CommRecord record;
    record.stats.kind = logic::to_string(logic::CommKind::inter);
    record.stats.collective_calls_unmatched = left.inter_unmatched;
    at.records_after.emplace_back(std::move(record), logic::CommKind::inter);
  }
}

void TimedCollectives::match(const feature::CommView& comm, bool all_left) {
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
    match_alone(timer_.take(comm_id(comm.user)), *comm.timed, comm.interleaved);
  } else {
    match_collectives(*comm.members, *comm.clock, timer_.take(comm_id(comm.user)), *comm.timed,
                      comm.trace, comm.interleaved);
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
