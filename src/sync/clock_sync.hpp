#pragma once
// One group's clock synchronization, as its users see it: the MPI one
// (sync/mpi/comm_clock_sync) and test doubles implement it, so that the world
// clock and the communicator clocks are tested without MPI.
#include <string>

#include "clock/global_clock.hpp"
#include "sync/given_clock.hpp"
#include "sync/settings.hpp"

namespace harmonize::sync {

// The check of the shared-clock assumption (sync/shared_clock_check.hpp) and
// its fallback, as far as they concern the whole group.
struct SharedClockReport {
  // Some (virtual) node has more than one process, so h2hca/h3hca rely on a
  // shared clock there and check it; false for hca3 and one process per node.
  bool active = false;
  double tolerance = 0;  // seconds (kSharedClockTolerance)
  // Totals over the group, valid on its rank 0 after each synchronize(),
  // warm-up included:
  int checked_groups = 0;    // groups (nodes; sockets for h3hca) of > 1 process checked so far
  int fell_back_groups = 0;  // of them, synchronized individually (HCA3 within the group) since
  double worst_disagreement = 0;  // seconds, the largest ever measured (0: all agreed exactly)
  int worst_node = -1;            // Placement::node of that group's node; -1 when none disagreed
  // This process's own group, valid on every member:
  bool own_group_fell_back = false;
  double own_group_disagreement = 0;  // the largest measured in it, seconds
};

struct SyncReport {
  double seconds = 0;         // duration of the last synchronize() on this process
  int rounds = 0;             // HCA3 rounds (ceil(log2) per HCA3 level)
  int levels = 0;             // hierarchy levels used (1 hca3, 2 h2hca, 3 h3hca)
  int nodes = 0;              // (virtual) nodes in the group
  std::string fallback_note;  // e.g. why h3hca ran as h2hca
  Scheme scheme_used = Scheme::h2hca;
  int syncs = 0;  // synchronize() calls so far
  SharedClockReport shared_clock;
  GivenClockReport given_clock;  // HARMONIZE_SYNC=none: the last check
};

class ClockSync {
 public:
  virtual ~ClockSync() = default;
  // Collective over the group; returns the new global clock. Later calls
  // refine the drift with the fit points of earlier calls.
  virtual clock::GlobalClock synchronize() = 0;
  // Replace the base (e.g. after the world clock was resynchronized); the
  // history measured on the old base is dropped when the models differ.
  virtual void rebase(clock::GlobalClock base) = 0;
  // The last synchronize()'s clock was refused (much worse than the one
  // kept): its fit points leave the history, so that later fits do not lean
  // on the batch that made it. Local to this process.
  virtual void discard_last() = 0;
  virtual const SyncReport& last_report() const = 0;
};

}  // namespace harmonize::sync
