#include "harmonize/clock_setup.hpp"

#include <mpi.h>

namespace harmonize {
namespace {

double wtime() {
  return PMPI_Wtime();
}

}  // namespace

sync::Settings sync_settings_from(const config::Policy& policy) {
  // The two layers spell their choices alike: the policy's names parse into
  // the sync layer's enums, so there is one mapping, not a second copy of it.
  sync::Settings settings;
  settings.scheme = *sync::parse_scheme(config::to_string(policy.sync));
  settings.model = *sync::parse_model_kind(config::to_string(policy.clock_model));
  settings.offset = *sync::parse_offset_algorithm(config::to_string(policy.offset_algorithm));
  settings.fitpoints = policy.fitpoints;
  settings.pingpongs = policy.pingpongs;
  settings.min_rtt_patience = policy.minrtt_patience;
  return settings;
}

ClockSetup make_clock_setup(const config::Policy& policy, int world_rank, std::string& error) {
  ClockSetup setup;
  setup.sync_settings = sync_settings_from(policy);
  setup.truth = clock::make_monotonic_source();
  setup.local = clock::make_named_source(config::to_string(policy.time_source), &wtime, error);
  if (!setup.local) {
    error = std::string("HARMONIZE_TIMESOURCE='") + config::to_string(policy.time_source) +
            "' cannot be used here: " + error;
    return setup;
  }
  setup.test_clock = clock::TestClockSpec{policy.test_clock_offset, policy.test_clock_drift,
                                          policy.test_clock_seed, policy.test_node_size};
  setup.test_clock_active = clock::test_clock_active(setup.test_clock);
  if (setup.test_clock_active) {
    const clock::Skew skew = clock::skew_for_node(
        setup.test_clock, clock::virtual_node_of(setup.test_clock, world_rank));
    setup.local = clock::make_skewed_source(std::move(setup.local), skew.offset, skew.drift);
  }
  if (setup.test_clock_active || policy.test_node_size > 0) {
    const clock::TestClockSpec spec = setup.test_clock;
    setup.virtual_node_of_rank = [spec](int rank) { return clock::virtual_node_of(spec, rank); };
  }
  return setup;
}

}  // namespace harmonize
