#pragma once
// The global clock of one communicator, as the barrier protocols see it. The
// session implements it over the world clock and the communicator's own
// syncs (MPI); the simulator tests implement it over sync::HierarchicalSync.
#include "clock/global_clock.hpp"

namespace harmonize::protocol {

class CommClock {
 public:
  virtual ~CommClock() = default;
  // False until a first sync when there is no clock to inherit (mode off).
  virtual bool ready() const = 0;
  virtual const clock::GlobalClock& clock() const = 0;
  virtual double last_sync() const = 0;   // on clock()
  virtual double expires_at() const = 0;  // last_sync + the resync interval then
  // Collective over the communicator's members (only them): a new sync, after
  // which clock(), last_sync() and expires_at() are fresh. Throws on failure.
  virtual void resync() = 0;
};

}  // namespace harmonize::protocol
