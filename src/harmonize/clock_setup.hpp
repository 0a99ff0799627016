#pragma once
// Turns the policy into the clocks the session runs on: the local time source
// (skewed when test clocks are on), the untouched truth, and sync settings.
#include <functional>
#include <memory>
#include <string>

#include "clock/test_clock.hpp"
#include "clock/time_source.hpp"
#include "config/policy.hpp"
#include "sync/settings.hpp"

namespace harmonize {

struct ClockSetup {
  std::unique_ptr<clock::TimeSource> local;  // what the algorithms read
  std::unique_ptr<clock::TimeSource> truth;  // untouched CLOCK_MONOTONIC
  clock::TestClockSpec test_clock;
  bool test_clock_active = false;
  sync::Settings sync_settings;
  // With HARMONIZE_TEST_NODE_SIZE, virtual nodes replace shared-memory nodes.
  std::function<int(int world_rank)> virtual_node_of_rank;
};

// Fills `error` (one line) when the requested time source is unavailable.
ClockSetup make_clock_setup(const config::Policy& policy, int world_rank, std::string& error);

sync::Settings sync_settings_from(const config::Policy& policy);

}  // namespace harmonize
