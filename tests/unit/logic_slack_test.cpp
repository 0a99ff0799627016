#include <catch2/catch.hpp>

#include <cmath>
#include <random>

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

TEST_CASE("each success shrinks the slack by growth^(-r/(1-r)), down to the minimum", "[logic]") {
  SlackSettings settings{
      .initial = 10e-6, .min = 1e-6, .max = 1e-3, .growth = 2.0, .target_miss_rate = 0.2};
  SlackController slack(settings);
  slack.on_outcome(false);
  CHECK(slack.current() == Approx(10e-6 * std::pow(2.0, -0.25)).epsilon(1e-12));
  CHECK(slack.current() < 10e-6);
  // r = 0.2: four successes undo one miss exactly.
  SlackController balanced(
      {.initial = 8e-6, .min = 1e-9, .max = 1.0, .growth = 2.0, .target_miss_rate = 0.2});
  balanced.on_outcome(true);
  for (int i = 0; i < 4; ++i) balanced.on_outcome(false);
  CHECK(balanced.current() == Approx(8e-6).epsilon(1e-12));
}

TEST_CASE("the slack stops at its minimum", "[logic]") {
  SlackController slack(
      {.initial = 2e-6, .min = 1e-6, .max = 1.0, .growth = 2.0, .target_miss_rate = 0.5});
  for (int i = 0; i < 10; ++i) slack.on_outcome(false);
  CHECK(slack.current() == 1e-6);
  CHECK(slack.smallest() == 1e-6);
}

TEST_CASE("the miss rate settles at the target", "[logic]") {
  // A latency the slack must cover: exponential with a 2 us mean. The call
  // misses when the latency exceeds the slack.
  std::mt19937_64 random(42);
  std::exponential_distribution<double> latency(1.0 / 2e-6);
  SlackController slack(
      {.initial = 1e-6, .min = 1e-9, .max = 1.0, .growth = 1.5, .target_miss_rate = 0.01});
  int misses = 0;
  const int calls = 200000;
  for (int i = 0; i < calls; ++i) {
    const bool miss = latency(random) > slack.current();
    if (i >= calls / 2) misses += miss;
    slack.on_outcome(miss);
  }
  const double rate = static_cast<double>(misses) / (calls / 2);
  CHECK(rate > 0.007);
  CHECK(rate < 0.013);
  // The 99th percentile of that latency is 2 us * ln(100) = 9.2 us.
  CHECK(slack.current() > 4e-6);
  CHECK(slack.current() < 20e-6);
}

TEST_CASE("auto slack is derived from the measured broadcast latency", "[logic]") {
  const SlackSettings s =
      derive_slack({.median = 2e-6, .p90 = 3e-6}, 1.5, nullptr, nullptr, nullptr);
  CHECK(s.initial == 6e-6);
  CHECK(s.min == 100e-9);
  CHECK(s.max == 10e-3);
  CHECK(s.growth == 1.5);
}

TEST_CASE("derived slack has a floor of 100 ns and a ceiling of one second", "[logic]") {
  const SlackSettings tiny =
      derive_slack({.median = 1e-8, .p90 = 2e-8}, 1.5, nullptr, nullptr, nullptr);
  CHECK(tiny.initial == 100e-9);
  CHECK(tiny.min == 100e-9);
  const SlackSettings huge =
      derive_slack({.median = 0.01, .p90 = 0.02}, 1.5, nullptr, nullptr, nullptr);
  CHECK(huge.max == 1.0);
  CHECK(huge.initial == 0.04);
}

TEST_CASE("explicit slack settings win over derived ones", "[logic]") {
  const double initial = 50e-6, minimum = 20e-6, maximum = 100e-6;
  const SlackSettings s =
      derive_slack({.median = 2e-6, .p90 = 3e-6}, 2.0, &initial, &minimum, &maximum);
  CHECK(s.initial == 50e-6);
  CHECK(s.min == 20e-6);
  CHECK(s.max == 100e-6);
  // An explicit minimum above the derived initial lifts the initial.
  const SlackSettings lifted =
      derive_slack({.median = 2e-6, .p90 = 3e-6}, 2.0, nullptr, &minimum, nullptr);
  CHECK(lifted.initial == 20e-6);
}

TEST_CASE("an explicit slack outside the derived bounds widens them", "[logic]") {
  const double large = 5.0, small = 20e-9;
  const SlackSettings wide =
      derive_slack({.median = 2e-6, .p90 = 3e-6}, 1.5, &large, nullptr, nullptr);
  CHECK(wide.initial == 5.0);
  CHECK(wide.max == 5.0);
  const SlackSettings narrow =
      derive_slack({.median = 2e-6, .p90 = 3e-6}, 1.5, &small, nullptr, nullptr);
  CHECK(narrow.initial == 20e-9);
  CHECK(narrow.min == 20e-9);
}
