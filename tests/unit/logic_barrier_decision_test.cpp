#include <catch2/catch.hpp>

#include <limits>

#include "harmonize/logic/barrier_decision.hpp"

using harmonize::logic::CallFlags;
using harmonize::logic::decide;
using harmonize::logic::late_exit_threshold;
using harmonize::logic::resync_interval;

TEST_CASE("rank 0 takes a deadline unless a clock expired or an old sync missed",
          "[logic][decision]") {
  const auto ok = decide(CallFlags{}, 5.0, 0.5, 20e-6);
  CHECK(!ok.resync);
  CHECK(ok.deadline == 5.0 + 20e-6);
  CHECK(decide({false, true}, 5.0, 0.001, 20e-6).resync);  // expired: always
  CHECK(decide({true, false}, 5.0, 0.101, 20e-6).resync);  // a miss 101 ms after a sync
  // A miss right after a sync is latency or scheduling, not clock error.
  const auto fresh = decide({true, false}, 5.0, 0.1, 20e-6);
  CHECK(!fresh.resync);
  CHECK(fresh.deadline == 5.0 + 20e-6);
}

TEST_CASE("the resync interval ramps 10, 30, 90 ms ... up to the configured one",
          "[logic][decision]") {
  CHECK(resync_interval(0, 1.0) == Approx(10e-3));
  CHECK(resync_interval(1, 1.0) == Approx(10e-3));
  CHECK(resync_interval(2, 1.0) == Approx(30e-3));
  CHECK(resync_interval(3, 1.0) == Approx(90e-3));
  CHECK(resync_interval(5, 1.0) == Approx(810e-3));
  CHECK(resync_interval(6, 1.0) == 1.0);
  CHECK(resync_interval(40, 1.0) == 1.0);
  CHECK(resync_interval(2, 0.02) == 0.02);  // a short configured interval wins at once
}

TEST_CASE("the late-exit threshold is 50 clock reads, never below 1 us", "[logic]") {
  CHECK(late_exit_threshold(20e-9) == 1e-6);
  CHECK(late_exit_threshold(100e-9) == Approx(5e-6));
  CHECK(late_exit_threshold(0.0) == 1e-6);
  CHECK(late_exit_threshold(-1.0) == 1e-6);
  CHECK(late_exit_threshold(std::numeric_limits<double>::quiet_NaN()) == 1e-6);
}
