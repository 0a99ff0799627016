#pragma once
// HARMONIZE_COLLECTIVES in a session (docs/collectives.md): the timer the
// shim stamps calls into, the barriers that end an arrival pattern or are
// themselves the operation under test, and the matching of a communicator's
// calls where the program times nothing (a barrier's start, MPI_Comm_free,
// MPI_Finalize). The session makes one when something is timed and tells it
// of its barriers and communicators; nothing else of the feature is its.
#include <mpi.h>

#include <cstdint>

#include "clock/global_clock.hpp"
#include "harmonize/collectives/collective_timer.hpp"
#include "harmonize/collectives/mpi/comm_id.hpp"
#include "harmonize/logic/record_store.hpp"
#include "harmonize/trace/events.hpp"
#include "report/comm_stats.hpp"
#include "sync/collectives.hpp"

namespace harmonize::collectives {

// A communicator as the matching sees it.
struct MatchedComm {
  MPI_Comm user = MPI_COMM_NULL;
  logic::CommKind kind = logic::CommKind::intra;
  // An intracommunicator's members and clock; null when its barrier was
  // given up on (its calls are never matched).
  sync::Collectives* members = nullptr;
  const clock::GlobalClock* clock = nullptr;
  report::CommStats* timed = nullptr;  // where its matched calls are added
  trace::CommTrace* trace = nullptr;   // HARMONIZE_TRACE: its timeline, else null
};

// What no matching took at MPI_Finalize, per process.
struct Leftovers {
  std::uint64_t unmatched = 0;        // intracommunicators' (MPI_COMM_WORLD's record)
  std::uint64_t inter_unmatched = 0;  // intercommunicators' (never matched)
  std::uint64_t spills = 0;
};

class TimedCollectives {
 public:
  // `thread_multiple`: calls may come from several threads at once.
  TimedCollectives(clock::TickStamp stamp, CollectiveSet timed, bool thread_multiple)
      : timer_(stamp, timed, thread_multiple, comm_id(MPI_COMM_NULL)) {}

  CollectiveTimer& timer() { return timer_; }
  bool times_barrier() const { return timer_.times(Collective::barrier); }

  // A barrier on `comm` ended: `in_time` when harmonized and left at the
  // deadline (plus the arrival pattern's `delay`); the calls until the next
  // barrier are valid only then.
  void barrier_left(MPI_Comm comm, bool in_time, double delay = 0) noexcept {
    timer_.barrier_left(comm_id(comm), in_time, delay);
  }
  // `barrier()` (returns the MPI status) timed like any collective: the
  // native barrier may be what the program measures (osu_barrier).
  template <typename Barrier>
  int timed_barrier(MPI_Comm comm, Barrier barrier) {
    const double entry = timer_.now();
    const int status = barrier();
    timer_.add({.entry = entry,
                .exit = timer_.now(),
                .comm = comm_id(comm),
                .operation = Collective::barrier});
    return status;
  }

  // Collective over `comm`'s members: its calls matched when due (every
  // kMatchBatch calls, alike on every member), or all that are left
  // (`all_left`: MPI_Comm_free, MPI_Finalize). Throws sync::MpiError.
  void match(const MatchedComm& comm, bool all_left);
  // How many calls `comm` has seen since its last matching.
  std::uint64_t calls_seen(MPI_Comm comm) { return timer_.calls_seen(comm_id(comm)); }
  // `comm` went before its calls were matched (its handle may come back as
  // another communicator's): how many it had, counted and no longer kept.
  std::uint64_t drop(MPI_Comm comm) { return timer_.take(comm_id(comm)).calls_seen; }
  // `comm` is freed: what is left of it is counted, never matched.
  void forget(MPI_Comm comm) noexcept { timer_.forget(comm_id(comm)); }
  // After every communicator alive was matched at MPI_Finalize.
  Leftovers leftovers();

 private:
  CollectiveTimer timer_;
};

}  // namespace harmonize::collectives
