#pragma once
// HARMONIZE_ARRIVAL in a job: read in config/, acted on here. The session
// asks three things of it and nothing else: whether the pattern fits the
// job (at MPI_Init), each communicator's delays (when its barrier protocol
// is made), and what the report says of it (at MPI_Finalize).
#include <optional>
#include <string>

#include "common/arrival_pattern.hpp"
#include "harmonize/arrival/arrival_delays.hpp"
#include "report/job_report.hpp"

namespace harmonize::arrival {

class JobArrival {
 public:
  // `harmonizing`: mode harmonize, the only one that imposes a pattern.
  // `node` of `nodes`: this process's, numbered over MPI_COMM_WORLD.
  JobArrival(ArrivalPattern pattern, bool harmonizing, int world_size, int node, int nodes)
      : pattern_(std::move(pattern)),
        harmonizing_(harmonizing),
        world_size_(world_size),
        node_(node),
        nodes_(nodes) {}

  // Why the pattern does not fit this job, as the error that stops it
  // (alike on every rank: all stop, or none); empty when it fits.
  std::string misfit_error() const;
  bool pattern_set() const { return pattern_.kind != ArrivalKind::none; }
  // The delays of this process as `rank` of a communicator of `size`, or
  // nullopt when no pattern is imposed.
  std::optional<ArrivalDelays> delays(int rank, int size) const;
  // What the report's "arrival" says (nullopt outside mode harmonize).
  std::optional<report::ArrivalInfo> report_info() const;
  // The delay a communicator of `size` was given on purpose: the
  // harmonization warning does not count it as slack run away.
  double imposed_delay(int size) const;

 private:
  ArrivalPattern pattern_;
  bool harmonizing_;
  int world_size_;
  int node_;
  int nodes_;
};

}  // namespace harmonize::arrival
