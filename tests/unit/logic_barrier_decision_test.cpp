#include <catch2/catch.hpp>

#include <limits>

#include "harmonize/logic/barrier_decision.hpp"

using namespace harmonize::logic;

TEST_CASE("a process asks for a resync when its clock expired or may have made it miss",
          "[logic][decision]") {
  CHECK(!wants_resync(ResyncInputs{}));
  CHECK(wants_resync({.expired = true, .sync_age = 0.001}));  // expired: always
  // A third miss in a row 101 ms after a sync, by less than twice the
  // clock's error bound.
  const ResyncInputs near{
      .misses_in_a_row = 3, .missed_by = 1.9e-6, .error_bound = 1e-6, .sync_age = 0.101};
  CHECK(wants_resync(near));
  // One or two misses are latency at the budget's rate, whatever the margin.
  CHECK(!wants_resync(
      {.misses_in_a_row = 2, .missed_by = 1e-9, .error_bound = 1e-6, .sync_age = 10}));
  // Right after a sync it is latency or scheduling, whatever the bound.
  CHECK(!wants_resync(
      {.misses_in_a_row = 3, .missed_by = 1e-9, .error_bound = 1e-6, .sync_age = 0.1}));
  // Missed by more than two clocks' errors can explain: the clock is not at
  // fault, and a resync would not have prevented it.
  CHECK(!wants_resync(
      {.misses_in_a_row = 3, .missed_by = 2.1e-6, .error_bound = 1e-6, .sync_age = 10}));
  CHECK(!wants_resync({.misses_in_a_row = 0, .missed_by = 0, .error_bound = 1, .sync_age = 10}));
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

TEST_CASE("the late-exit threshold is 10 clock reads, never below 500 ns", "[logic]") {
  CHECK(late_exit_threshold(20e-9) == 500e-9);
  CHECK(late_exit_threshold(100e-9) == Approx(1e-6));
  CHECK(late_exit_threshold(0.0) == 500e-9);
  CHECK(late_exit_threshold(-1.0) == 500e-9);
  CHECK(late_exit_threshold(std::numeric_limits<double>::quiet_NaN()) == 500e-9);
}

TEST_CASE("a yielding wait spins its last 4 yields, never less than 2 us", "[logic]") {
  CHECK(spin_tail_after_yield(0.85e-6) == Approx(3.4e-6));
  CHECK(spin_tail_after_yield(0.3e-6) == 2e-6);
  CHECK(spin_tail_after_yield(0.0) == 2e-6);
  CHECK(spin_tail_after_yield(-1.0) == 2e-6);
  CHECK(spin_tail_after_yield(std::numeric_limits<double>::infinity()) == 2e-6);
  // The tail outlasts the late-exit threshold's overshoot of a plain spin.
  CHECK(spin_tail_after_yield(0.0) > late_exit_threshold(100e-9));
}

TEST_CASE("observe's next flush comes where the clock expires, at the calls' pace",
          "[logic][decision]") {
  CHECK(calls_until_expiry(1.0, 5e-3, 512) == 200);
  CHECK(calls_until_expiry(1.001, 5e-3, 512) == 201);  // the first call past the expiry
  CHECK(calls_until_expiry(1.0, 1e-6, 512) == 512);    // back to back: the log's capacity
  CHECK(calls_until_expiry(1e-9, 5e-3, 512) == 1);
  CHECK(calls_until_expiry(0.0, 5e-3, 512) == 1);  // expired already: the next call
  CHECK(calls_until_expiry(-1.0, 5e-3, 512) == 1);
  CHECK(calls_until_expiry(1.0, 0.0, 512) == 512);  // no pace measured
  CHECK(calls_until_expiry(1.0, std::numeric_limits<double>::infinity(), 512) == 1);
  CHECK(calls_until_expiry(std::numeric_limits<double>::quiet_NaN(), 5e-3, 512) == 1);
  CHECK(calls_until_expiry(1.0, std::numeric_limits<double>::quiet_NaN(), 512) == 512);
  CHECK(calls_until_expiry(1e300, 1e-300, 512) == 512);
}
