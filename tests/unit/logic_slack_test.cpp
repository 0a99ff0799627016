#include <catch2/catch.hpp>

#include <cmath>

#include "harmonize/logic/slack_controller.hpp"

using namespace harmonize::logic;

TEST_CASE("a miss grows the slack by the growth factor, up to the maximum", "[logic]") {
  SlackController slack({.initial = 2e-6, .min = 1e-6, .max = 5e-6, .growth = 1.5});
  slack.on_outcome(true);
  CHECK(slack.current() == 3e-6);
  slack.on_outcome(true);
  CHECK(slack.current() == Approx(4.5e-6).epsilon(1e-12));
  slack.on_outcome(true);
  CHECK(slack.current() == 5e-6);
  CHECK(slack.largest() == 5e-6);
  CHECK(slack.initial() == 2e-6);
}

TEST_CASE("a run of successes shrinks the slack, down to the minimum", "[logic]") {
  SlackSettings settings{.initial = 16e-6, .min = 10e-6, .max = 1e-3, .growth = 2.0,
                         .shrink_after = 3, .shrink_steps = 1};
  SlackController slack(settings);
  slack.on_outcome(false);
  slack.on_outcome(false);
  CHECK(slack.current() == 16e-6);  // not yet a full run
  slack.on_outcome(false);
  CHECK(slack.current() == 10e-6);  // 8e-6 is below the minimum
  CHECK(slack.smallest() == 10e-6);
}

TEST_CASE("recovering one miss takes shrink_steps runs", "[logic]") {
  SlackSettings settings{.initial = 4e-6, .min = 1e-6, .max = 1.0, .growth = 1.5,
                         .shrink_after = 10, .shrink_steps = 4};
  SlackController slack(settings);
  slack.on_outcome(true);
  CHECK(slack.current() == 6e-6);
  for (int i = 0; i < 40; ++i) slack.on_outcome(false);
  CHECK(slack.current() == Approx(4e-6).epsilon(1e-12));
}

TEST_CASE("a miss resets the run of successes", "[logic]") {
  SlackController slack({.initial = 4e-6, .min = 1e-6, .max = 1.0, .growth = 2.0,
                         .shrink_after = 2, .shrink_steps = 1});
  slack.on_outcome(false);
  slack.on_outcome(true);   // 8e-6, run reset
  slack.on_outcome(false);  // run of one
  CHECK(slack.current() == 8e-6);
  slack.on_outcome(false);
  CHECK(slack.current() == 4e-6);
}

TEST_CASE("auto slack is derived from the measured broadcast latency", "[logic]") {
  const SlackSettings s = derive_slack({.median = 2e-6, .p90 = 3e-6}, 1.5, nullptr, nullptr, nullptr);
  CHECK(s.initial == 6e-6);
  CHECK(s.min == 2e-6);
  CHECK(s.max == 10e-3);
  CHECK(s.growth == 1.5);
}

TEST_CASE("derived slack has a floor of one microsecond and a ceiling of one second", "[logic]") {
  const SlackSettings tiny = derive_slack({.median = 1e-8, .p90 = 2e-8}, 1.5, nullptr, nullptr, nullptr);
  CHECK(tiny.initial == 1e-6);
  CHECK(tiny.min == 1e-6);
  const SlackSettings huge = derive_slack({.median = 0.01, .p90 = 0.02}, 1.5, nullptr, nullptr, nullptr);
  CHECK(huge.max == 1.0);
  CHECK(huge.initial == 0.04);
}

TEST_CASE("explicit slack settings win over derived ones", "[logic]") {
  const double initial = 50e-6, minimum = 20e-6, maximum = 100e-6;
  const SlackSettings s = derive_slack({.median = 2e-6, .p90 = 3e-6}, 2.0, &initial, &minimum, &maximum);
  CHECK(s.initial == 50e-6);
  CHECK(s.min == 20e-6);
  CHECK(s.max == 100e-6);
  // An explicit minimum above the derived initial lifts the initial.
  const SlackSettings lifted = derive_slack({.median = 2e-6, .p90 = 3e-6}, 2.0, nullptr, &minimum, nullptr);
  CHECK(lifted.initial == 20e-6);
}
