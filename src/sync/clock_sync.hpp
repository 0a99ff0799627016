#pragma once
// One group's clock synchronization, as its users see it: the MPI one
// (sync/mpi/comm_clock_sync) and test doubles implement it, so that the world
// clock and the communicator clocks are tested without MPI.
#include <string>

#include "clock/global_clock.hpp"
#include "sync/settings.hpp"

namespace harmonize::sync {

struct SyncReport {
  double seconds = 0;         // duration of the last synchronize() on this process
  int rounds = 0;             // HCA3 rounds (ceil(log2) per HCA3 level)
  int levels = 0;             // hierarchy levels used (1 hca3, 2 h2hca, 3 h3hca)
  int nodes = 0;              // (virtual) nodes in the group
  std::string fallback_note;  // e.g. why h3hca ran as h2hca
  Scheme scheme_used = Scheme::h2hca;
  int syncs = 0;  // synchronize() calls so far
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
  virtual const SyncReport& last_report() const = 0;
};

}  // namespace harmonize::sync
