#pragma once
// Check-Global-Clock at MPI_Finalize (paper 001 Alg. 6; paper 000 sec. 6.5):
// the world clock's remaining offset between the reference (world rank 0)
// and the node leaders, measured with its RTT bound, next to what each
// checked rank's error bound claims. The one number of the report that does
// not come from the clock it judges.
#include <mpi.h>

#include <optional>

#include "clock/global_clock.hpp"
#include "clock/test_clock.hpp"
#include "report/job_report.hpp"
#include "sync/layout.hpp"

namespace harmonize {

struct EndCheckInputs {
  MPI_Comm world = MPI_COMM_NULL;  // the library's private world
  clock::GlobalClock clock;        // the world clock now
  double synced_at = 0;            // its last sync, on `clock`
  const sync::Layout* layout = nullptr;
  bool yield_while_waiting = false;
  // With test clocks: the true error of every checked rank is computed too.
  std::optional<clock::Skew> reference_skew;
  clock::Skew own_skew{0.0, 0.0};
  const clock::TimeSource* truth = nullptr;
};

// Collective over `inputs.world`. The result on world rank 0, nullopt
// elsewhere (and on a one-process job). Throws sync::MpiError.
std::optional<report::ClockCheckInfo> check_world_clock_at_end(const EndCheckInputs& inputs);

}  // namespace harmonize
