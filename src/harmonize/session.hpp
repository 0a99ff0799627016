#pragma once
// Everything the library measures between MPI_Init and MPI_Finalize: the
// world clock, the per-communicator barrier state, and the final report.
#include <mpi.h>

#include <memory>

#include "config/policy.hpp"

namespace harmonize {

namespace collectives {
class CollectiveTimer;
}

class Session {
 public:
  virtual ~Session() = default;

  // Collective over `private_world`, which carries all sync traffic.
  // Synchronizes the world clock when the mode needs one (observe,
  // harmonize). In mode off `private_world` is MPI_COMM_NULL: nothing is
  // measured, no collective is made, and only explicit MPIX_Harmonize calls
  // use the session. Throws MpiError when the start-up sync fails.
  static std::unique_ptr<Session> create(const config::PolicyResult& configuration,
                                         MPI_Comm private_world);

  // An intercepted MPI_Barrier: observed or harmonized as the policy says.
  virtual int barrier(MPI_Comm comm) = 0;
  // MPIX_Harmonize: always a harmonized barrier.
  virtual int harmonize(MPI_Comm comm, int* flag) = 0;
  virtual int last_flag(MPI_Comm comm, int* flag) = 0;
  // The world clock now and its proven error bound (seconds), from any
  // thread; false when there is none (mode off).
  virtual bool global_time(double& time, double& bound) const = 0;
  // Collective over the world: statistics to rank 0, report, summary line.
  virtual void finish() = 0;
  // The timer of the collectives (HARMONIZE_COLLECTIVES), or null when
  // nothing is timed (mode off, or none).
  virtual collectives::CollectiveTimer* collective_timer() = 0;
  // MPI_Comm_free is about to free `comm` (collective over its members): its
  // timed calls are matched now. Throws what the collectives throw.
  virtual void comm_freeing(MPI_Comm comm) = 0;
};

}  // namespace harmonize
