#pragma once
// HARMONIZE_COLLECTIVES as a feature of the session (docs/collectives.md):
// the timer the shim stamps calls into, the barriers that end an arrival
// pattern or are themselves the operation under test, and the matching of a
// communicator's calls where the program times nothing (a barrier's start,
// MPI_Comm_free, MPI_Finalize).
#include <mpi.h>

#include <cstdint>

#include "clock/global_clock.hpp"
#include "harmonize/collectives/collective_timer.hpp"
#include "harmonize/collectives/mpi/comm_id.hpp"
#include "harmonize/feature/feature.hpp"

namespace harmonize::collectives {

// What no matching took at MPI_Finalize, per process.
struct Leftovers {
  std::uint64_t unmatched = 0;        // intracommunicators' (MPI_COMM_WORLD's record)
  std::uint64_t inter_unmatched = 0;  // intercommunicators' (never matched)
  std::uint64_t spills = 0;
};

class TimedCollectives final : public feature::Feature {
 public:
  // Null when nothing is timed.
  static std::unique_ptr<feature::Feature> make(const feature::JobContext& job);
  // `thread_multiple`: calls may come from several threads at once.
  TimedCollectives(clock::TickStamp stamp, CollectiveSet timed, bool thread_multiple)
      : timer_(stamp, timed, thread_multiple, comm_id(MPI_COMM_NULL)) {}

  CollectiveTimer* call_timer() override { return &timer_; }

  // Until a barrier is harmonized in time its calls are not valid; a
  // barrier's start matches the calls due (nothing the program times is
  // disturbed), except the barrier under test, which is timed.
  void barrier_entering(const feature::BarrierEntry& entry) override;
  // The native barrier may be what the program measures (osu_barrier).
  bool measures_barrier() const override { return timer_.times(Collective::barrier); }
  int measure_barrier(MPI_Comm comm, const feature::BarrierBody& barrier) override;
  // In time: the calls until the next barrier are valid. A side's tag goes
  // to the first call after it.
  void barrier_left(const feature::BarrierExit& exit) override {
    timer_.barrier_left(comm_id(exit.comm), exit.in_time, exit.delay, exit.side_tag);
  }
  // Freeing is collective: the calls not yet matched are matched now rather
  // than lost (IMB frees each communicator right after its largest sizes).
  void comm_freeing(MPI_Comm comm, feature::CommView* view) override;
  // Freed before its calls were matched: counted, not kept.
  void comm_retired(const feature::CommView& view, logic::CommRecord& record) override {
    record.stats.collective_calls_unmatched += drop(view.user);
  }
  // Every communicator alive is matched; what no matching took goes on the
  // world's record, intercommunicators' on theirs.
  void finishing(feature::Finishing& at) override;

 private:
  // Collective over `comm`'s members: its calls matched when due (every
  // kMatchBatch calls, alike on every member), or all that are left
  // (`all_left`: MPI_Comm_free, MPI_Finalize). Throws sync::MpiError.
  void match(const feature::CommView& comm, bool all_left);
  // How many calls `comm` has seen since its last matching.
  std::uint64_t calls_seen(MPI_Comm comm) { return timer_.calls_seen(comm_id(comm)); }
  // `comm` went before its calls were matched (its handle may come back as
  // another communicator's): how many it had, counted and no longer kept.
  std::uint64_t drop(MPI_Comm comm) { return timer_.take(comm_id(comm)).calls_seen; }
  // `comm` is freed: what is left of it is counted, never matched.
  void forget(MPI_Comm comm) noexcept { timer_.forget(comm_id(comm)); }
  // After every communicator alive was matched at MPI_Finalize.
  Leftovers leftovers();

  CollectiveTimer timer_;
};

}  // namespace harmonize::collectives
