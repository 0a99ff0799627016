#pragma once
// Turns the policy into the clocks a process runs on: the selected time
// source, what the algorithms read (that source, skewed when test clocks are
// on), the untouched truth, and the sync settings. The session and
// harmonize-clockcheck both set their clocks up here.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "clock/test_clock.hpp"
#include "clock/time_source.hpp"
#include "config/policy.hpp"
#include "sync/settings.hpp"

namespace harmonize {

struct ClockSetup {
  // The HARMONIZE_TIMESOURCE source, owned here when test clocks skew it
  // (`local` is then a view of it); null otherwise (`local` is the source).
  // Declared before `local`, which may refer to it.
  std::unique_ptr<clock::TimeSource> unskewed;
  // What the algorithms read: local = skewed_time(skew, source().now()).
  std::unique_ptr<clock::TimeSource> local;
  // Untouched CLOCK_MONOTONIC, one clock for every process of a machine
  // whatever the time source: the session's truth for exit skews.
  std::unique_ptr<clock::TimeSource> truth;
  clock::TestClockSpec test_clock;
  bool test_clock_active = false;
  clock::Skew skew{0.0, 0.0};  // of this rank's clock; zero without test clocks
  sync::Settings sync_settings;
  // With HARMONIZE_TEST_NODE_SIZE, or test clocks of scope node, virtual
  // nodes replace shared-memory nodes (clock::uses_virtual_nodes).
  std::function<int(int world_rank)> virtual_node_of_rank;

  // The selected time source before the test skew: the exact truth of
  // `local` (harmonize-clockcheck's ground truth). Per process for tsc and
  // wtime, which is why `truth` is monotonic.
  const clock::TimeSource& source() const { return unskewed ? *unskewed : *local; }
  // The test skew of any rank's clock (its virtual node's, or its own with
  // HARMONIZE_TEST_CLOCK_SCOPE=process).
  clock::Skew skew_of_rank(int world_rank) const {
    return clock::skew_of_rank(test_clock, world_rank);
  }
};

// Fills `error` (one line) and leaves `local` null when the requested time
// source is unavailable, or when host test clocks cannot find the hosts.
// `find_hosts` (called only for HARMONIZE_TEST_CLOCK_SCOPE=host; may be empty
// where no collective is allowed) returns the shared-memory node of every
// world rank, numbered by each node's lowest world rank.
using HostFinder = std::function<std::vector<int>()>;
ClockSetup make_clock_setup(const config::Policy& policy, const HostFinder& find_hosts,
                            int world_rank, std::string& error);

// The policy and the sync layer share their enums (common/choices.hpp), so
// this copies fields. Inline: the unit tests check it without MPI.
inline sync::Settings sync_settings_from(const config::Policy& policy) {
  sync::Settings settings;
  settings.scheme = policy.sync;
  settings.model = policy.clock_model;
  settings.offset = policy.offset_algorithm;
  settings.fitpoints = policy.fitpoints;
  settings.pingpongs = policy.pingpongs;
  settings.min_rtt_patience = policy.minrtt_patience;
  settings.path_asymmetry = policy.path_asymmetry;
  return settings;
}

}  // namespace harmonize
