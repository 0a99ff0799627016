#include "harmonize/arrival/mpi/arrival_feature.hpp"

namespace harmonize::arrival {

std::unique_ptr<feature::Feature> ArrivalFeature::make(const feature::JobContext& job) {
  return std::make_unique<ArrivalFeature>(
      JobArrival(job.policy.arrival, job.policy.mode == config::Mode::harmonize, job.world_size,
                 job.node.index, job.node.count));
}

std::optional<std::string> ArrivalFeature::misfit() const {
  if (!arrival_.pattern_set()) return std::nullopt;
  return arrival_.misfit_error();
}

void ArrivalFeature::comm_made(feature::CommSetup& comm) {
  comm.settings.arrival = arrival_.delays(comm.rank, comm.size);
  if (comm.settings.arrival) comm.settings.arrival_delta = arrival_.imposed_delay(comm.size);
}

}  // namespace harmonize::arrival
