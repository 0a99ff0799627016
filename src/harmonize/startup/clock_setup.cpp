#include "harmonize/startup/clock_setup.hpp"

#include <mpi.h>

namespace harmonize {
namespace {

double wtime() {
  return PMPI_Wtime();
}

}  // namespace

ClockSetup make_clock_setup(const config::Policy& policy, const HostFinder& find_hosts,
                            int world_rank, std::string& error) {
  ClockSetup setup;
  setup.sync_settings = sync_settings_from(policy);
  setup.truth = clock::make_monotonic_source();
  std::string why;
  std::unique_ptr<clock::TimeSource> source = clock::make_source(policy.time_source, &wtime, why);
  if (!source) {
    error = std::string("HARMONIZE_TIMESOURCE='") + config::to_string(policy.time_source) +
            "' cannot be used here: " + why;
    return setup;
  }
  setup.test_clock = clock::test_clocks(policy.test_clock_offset, policy.test_clock_drift,
                                        policy.test_clock_seed, policy.test_node_size,
                                        policy.test_clock_scope == config::TestClockScope::process);
  setup.test_clock_active = clock::test_clock_active(setup.test_clock);
  if (setup.test_clock_active && policy.test_clock_scope == config::TestClockScope::host) {
    if (!find_hosts) {
      error =
          "HARMONIZE_TEST_CLOCK_SCOPE='host' needs the library's communicator to find the "
          "hosts (HARMONIZE_MODE is off)";
      setup.local.reset();
      return setup;
    }
    setup.test_clock.per_host = true;
    setup.test_clock.host_of_rank = find_hosts();
  }
  if (setup.test_clock_active) {
    setup.skew = setup.skew_of_rank(world_rank);
    setup.unskewed = std::move(source);
    setup.local = clock::make_skewed_view(*setup.unskewed, setup.skew.offset, setup.skew.drift);
  } else {
    setup.local = std::move(source);
  }
  if (clock::uses_virtual_nodes(setup.test_clock)) {
    const clock::TestClockSpec spec = setup.test_clock;
    setup.virtual_node_of_rank = [spec](int rank) { return clock::virtual_node_of(spec, rank); };
  }
  return setup;
}

}  // namespace harmonize
