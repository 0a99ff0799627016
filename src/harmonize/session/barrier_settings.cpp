#include "harmonize/session/barrier_settings.hpp"

#include <cstdio>

namespace harmonize {

protocol::ProtocolSettings barrier_settings(const config::Policy& policy, const SessionJob& job,
                                            const SessionClocks& clocks, const std::string& name) {
  protocol::ProtocolSettings settings;
  settings.slack = policy.slack;
  settings.slack_min = policy.slack_min;
  settings.slack_max = policy.slack_max;
  settings.miss_target = policy.miss_target;
  settings.resync_at_flush = policy.mode == config::Mode::observe;
  settings.yield_while_spinning = job.crowding.oversubscribed;
  settings.truth = clocks.setup().truth.get();
  settings.record_truth = clocks.setup().test_clock_active;
  // Deadlines are on a clock whose reference is world rank 0's (mode off has
  // no world clock, so no known reference).
  if (clocks.setup().test_clock_active && clocks.world().exists()) {
    settings.reference_skew = clocks.setup().skew_of_rank(0);
    settings.own_skew = clocks.setup().skew;
  }
  const bool speaks = job.rank == 0;
  settings.on_give_up = [name, speaks](const std::string& reason) {
    if (speaks) {
      std::fprintf(stderr, "harmonize: warning: %s: barriers are native from now on: %s\n",
                   name.c_str(), reason.c_str());
    }
  };
  return settings;
}

std::string comm_name(MPI_Comm comm, const std::string& set_name, const logic::CommKey& key,
                      int size) {
  if (comm == MPI_COMM_WORLD) return "MPI_COMM_WORLD";
  if (comm == MPI_COMM_SELF) return "MPI_COMM_SELF";
  if (!set_name.empty()) return set_name;
  return "comm#" + std::to_string(key.serial) + "@" + std::to_string(key.root_world_rank) +
         " (size " + std::to_string(size) + ")";
}

}  // namespace harmonize
