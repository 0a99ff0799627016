#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <random>
#include <utility>
#include <vector>

#include "harmonize/logic/slack_controller.hpp"

using namespace harmonize::logic;

namespace {

// `count` needs of `need` seconds each.
void add(NeedHistogram& needs, double need, int count) {
  for (int i = 0; i < count; ++i) needs.add(need);
}

// The histogram of `counts` (need in seconds, how many calls).
NeedHistogram histogram(std::initializer_list<std::pair<double, int>> counts) {
  NeedHistogram needs;
  for (const auto& [need, count] : counts) add(needs, need, count);
  return needs;
}

double edge_above(double need) {
  return NeedHistogram::upper_edge(NeedHistogram::bin_of(need));
}

}  // namespace

TEST_CASE("needs are binned 5 % apart from 10 ns", "[logic][slack]") {
  CHECK(NeedHistogram::bin_of(0) == 0);
  CHECK(NeedHistogram::bin_of(-1) == 0);
  CHECK(NeedHistogram::bin_of(std::nan("")) == 0);
  CHECK(NeedHistogram::bin_of(1.0001 * NeedHistogram::kLowest) == 0);
  CHECK(NeedHistogram::bin_of(1.06 * NeedHistogram::kLowest) == 1);
  CHECK(NeedHistogram::bin_of(1.0001 * NeedHistogram::kLowest * std::pow(1.05, 100)) == 100);
  CHECK(NeedHistogram::bin_of(1e6) == NeedHistogram::kBins - 1);
  CHECK(NeedHistogram::upper_edge(0) == Approx(1.05 * NeedHistogram::kLowest));
  for (const double need : {25e-9, 1e-6, 3.3e-5, 0.2}) {
    CHECK(edge_above(need) >= need);
    CHECK(edge_above(need) < 1.05 * need);
  }
  NeedHistogram needs = histogram({{1e-6, 4}});
  needs.scale(0.5);
  CHECK(needs.total() == 2);
  CHECK(needs.count(NeedHistogram::bin_of(1e-6)) == 2);
}

TEST_CASE("a slack misses the needs from its own bin up", "[logic][slack]") {
  const NeedHistogram needs = histogram({{1e-6, 3}, {10e-6, 1}});
  CHECK(missed_share(needs, 5e-6) == 0.25);
  CHECK(missed_share(needs, edge_above(10e-6)) == 0);
  CHECK(missed_share(needs, 10e-6) == 0.25);  // inside the bin: charged the whole bin
  CHECK(missed_share(needs, 1e-6) == 1);
  CHECK(missed_share(NeedHistogram{}, 1e-6) == 0);
}

TEST_CASE("the miss budget is kept when keeping it at most doubles a valid call's cost",
          "[logic][slack]") {
  NeedHistogram needs = histogram({{1e-6, 990}, {5e-6, 10}});  // 1 % of calls need 5 us
  // Covering 1 us: 1 % misses, (10 + 1.05) / 0.99 = 11.2 us per valid call;
  // covering 5 us: none, 15.2 us. The budget (0.5 %) wins.
  const SlackChoice kept = choose_slack(needs, 10e-6, 0.005, 100e-9, 1.0, 0);
  CHECK(kept.slack == Approx(edge_above(5e-6)));
  CHECK(kept.flagged_rate == 0);
  // With a 1 % budget the cheaper slack already keeps it.
  const SlackChoice cheaper = choose_slack(needs, 10e-6, 0.01, 100e-9, 1.0, 0);
  CHECK(cheaper.slack == Approx(edge_above(1e-6)));
  CHECK(cheaper.flagged_rate == Approx(0.01));
}

TEST_CASE("the budget counts every miss when an affordable slack keeps it", "[logic][slack]") {
  NeedHistogram needs =
      histogram({{1e-6, 993}, {3e-6, 4}, {1e-3, 3}});  // 0.3 % no affordable slack prevents
  // Covering 3 us leaves the 0.3 %, within the 0.5 % budget; covering 1 us
  // (0.7 %) would be within the budget on top of those 0.3 %, but the budget
  // is the misses a user sees, all of them, whenever it can be kept.
  const SlackChoice choice = choose_slack(needs, 10e-6, 0.005, 100e-9, 1.0, 0);
  CHECK(choice.slack == Approx(edge_above(3e-6)));
  CHECK(choice.flagged_rate == Approx(0.003));
}

TEST_CASE("a budget only a slack of milliseconds keeps is given up for the cheapest slack",
          "[logic][slack]") {
  // A CPU hog beside the ranks: 1 % of calls wait for a descheduled process.
  NeedHistogram needs = histogram({{1e-6, 990}, {3e-3, 10}});
  const SlackChoice choice = choose_slack(needs, 10e-6, 0.005, 100e-9, 1.0, 0);
  CHECK(choice.slack == Approx(edge_above(1e-6)));
  CHECK(choice.flagged_rate == Approx(0.01));
}

TEST_CASE("a costly iteration buys a lower miss rate than the budget asks", "[logic][slack]") {
  NeedHistogram needs = histogram({{1e-6, 900}, {2e-6, 100}});
  // 1 ms iterations: a 10 % miss rate costs 100 us a valid call, covering
  // everything 1 us more.
  CHECK(choose_slack(needs, 1e-3, 0.2, 100e-9, 1.0, 0).slack == Approx(edge_above(2e-6)));
  // Back-to-back calls: the cheaper slack, within the 20 % budget.
  const SlackChoice cheap = choose_slack(needs, 0, 0.2, 100e-9, 1.0, 0);
  CHECK(cheap.slack == Approx(edge_above(1e-6)));
  CHECK(cheap.flagged_rate == Approx(0.1));
}

TEST_CASE("the chosen slack stays within its bounds", "[logic][slack]") {
  NeedHistogram tiny;
  add(tiny, 10e-9, 100);
  CHECK(choose_slack(tiny, 1e-6, 0.005, 100e-9, 1.0, 0).slack == 100e-9);
  NeedHistogram slow;
  add(slow, 1e-3, 100);
  const SlackChoice capped = choose_slack(slow, 1e-6, 0.005, 100e-9, 10e-6, 0);
  CHECK(capped.slack == 10e-6);
  CHECK(capped.flagged_rate == 1);
  // Nothing measured yet: the fallback, within the bounds.
  CHECK(choose_slack(NeedHistogram{}, 1e-6, 0.005, 100e-9, 1.0, 3e-6).slack == 3e-6);
  CHECK(choose_slack(NeedHistogram{}, 1e-6, 0.005, 100e-9, 1e-6, 3e-6).slack == 1e-6);
}

namespace {

struct Run {
  double miss_rate = 0;  // over the second half
  double slack = 0;      // at the end
  double largest = 0;
};

// Back-to-back calls whose needs are `draw()`, 10 us apart besides the slack.
template <typename Draw>
Run run_calls(SlackController& slack, Draw draw, int calls) {
  double entry = 0;
  int misses = 0;
  for (int i = 0; i < calls; ++i) {
    const double need = draw();
    if (i >= calls / 2) misses += need > slack.current();
    entry += 10e-6 + slack.current();
    slack.on_call({need, false, slack.current()}, entry);
  }
  return {static_cast<double>(misses) / (calls / 2), slack.current(), slack.largest()};
}

}  // namespace

TEST_CASE("the controller settles at the budget on a well-behaved latency", "[logic][slack]") {
  // Exponential needs with a 2 us mean: 0.5 % of them exceed 2 us x ln(200)
  // = 10.6 us, which costs 20.7 us a valid call against 16.2 us for the
  // cheapest slack (4.3 us, 12 % misses): the budget is kept.
  std::mt19937_64 random(42);
  std::exponential_distribution<double> latency(1.0 / 2e-6);
  SlackController slack({.initial = 1e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.005});
  CHECK(slack.current() == 1e-6);
  const Run run = run_calls(
      slack, [&] { return latency(random); }, 40000);
  CHECK(run.miss_rate < 0.01);
  CHECK(run.miss_rate > 0.001);
  CHECK(run.slack > 8e-6);
  CHECK(run.slack < 14e-6);
}

TEST_CASE("preemption misses no longer ratchet the slack up to milliseconds", "[logic][slack]") {
  // 2 % of calls wait 3 ms for a descheduled process: the previous
  // controller grew the slack until they stopped missing, and every call
  // then waited milliseconds.
  std::mt19937_64 random(7);
  std::exponential_distribution<double> latency(1.0 / 2e-6);
  std::bernoulli_distribution preempted(0.02);
  SlackController slack({.initial = 20e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.005});
  const Run run = run_calls(
      slack, [&] { return preempted(random) ? 3e-3 : latency(random); }, 40000);
  CHECK(run.slack < 20e-6);
  CHECK(run.largest < 100e-6);
  CHECK(run.miss_rate < 0.05);
}

TEST_CASE("a spin preempted now and then makes a long slack dear", "[logic][slack]") {
  // A CPU hog beside two ranks: 70 % of calls need 10 us, the others wait for
  // a descheduled process, up to 4 ms. Covering those would mean spinning
  // milliseconds, and a process spinning that long is itself preempted.
  NeedHistogram needs = histogram({{10e-6, 700}});
  for (int i = 1; i <= 300; ++i) needs.add(i * 4e-3 / 300);
  const SlackChoice spins = choose_slack(needs, 10e-6, 0.0025, 100e-9, 1.0, 0, 1 / 3e-3);
  CHECK(spins.slack == Approx(edge_above(10e-6)));
  CHECK(spins.flagged_rate > 0.3);
  CHECK(spins.flagged_rate < 0.31);
  // Without preemption the choice is the same (covering milliseconds is
  // never affordable); the loss is the misses alone.
  CHECK(choose_slack(needs, 10e-6, 0.0025, 100e-9, 1.0, 0).flagged_rate == Approx(0.3));
  // Lates are charged for the spin the slack implies: 1 per 10 ms of spin,
  // a slack of 110 us over needs of 10 us, 1 %.
  NeedHistogram steady;
  add(steady, 10e-6, 1000);
  const double slack = edge_above(10e-6) + 100e-6;
  const SlackChoice capped = choose_slack(steady, 1e-3, 0.0025, slack, slack, 0, 100);
  CHECK(capped.slack == slack);
  const double centre = edge_above(10e-6) / std::sqrt(1.05);  // where the bin's needs count
  CHECK(capped.flagged_rate == Approx(100 * (slack - centre)));
}

TEST_CASE("preempted spins turn a slack covering the tail into one covering the bulk",
          "[logic][slack]") {
  // 90 % of calls need 1 us, 10 % 50 us; 1 ms iterations make a lost call
  // dear, so without lates the slack covers the 50 us.
  NeedHistogram needs = histogram({{1e-6, 900}, {50e-6, 100}});
  const SlackChoice calm = choose_slack(needs, 1e-3, 0.0025, 100e-9, 1.0, 0, 0);
  CHECK(calm.slack == Approx(edge_above(50e-6)));
  CHECK(calm.flagged_rate == 0);
  // 3000 lates per second of spin: covering 50 us means ~46 us of spin and
  // 14 % lates, dearer than the 10 % misses of covering 1 us.
  const SlackChoice preempted = choose_slack(needs, 1e-3, 0.0025, 100e-9, 1.0, 0, 3000);
  CHECK(preempted.slack == Approx(edge_above(1e-6)));
  CHECK(preempted.flagged_rate == Approx(0.1).epsilon(0.01));
}

TEST_CASE("the controller learns how often spins are preempted", "[logic][slack]") {
  // The needs above, 1 ms iterations, a slack of 60 us to start with.
  const auto run = [](bool late) {
    SlackController slack({.initial = 60e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.0025});
    for (int i = 1; i <= SlackController::kChooseEvery; ++i)
      slack.on_call({i % 10 == 0 ? 50e-6 : 1e-6, late, slack.current()}, i * 1e-3);
    return slack.current();
  };
  // No late exit: the slack covers the tail.
  CHECK(run(false) == Approx(edge_above(50e-6)));
  // A late exit in every call, ~60 us of spin each: the bulk only.
  CHECK(run(true) == Approx(edge_above(1e-6)));
}

TEST_CASE("lates suffered in an imposed delay's spin do not shrink the slack", "[logic][slack]") {
  // HARMONIZE_ARRIVAL=rank:1:1ms beside other load: rank 1 spins 1 ms past
  // every deadline and is preempted there in 20 % of calls. Needs of 2 us,
  // 10 % of them 8 us, a slack of 10 us to start with, 1 ms iterations.
  // Charged to the slack's own spin (microseconds), those lates made every
  // slack above the minimum look dear, and the slack fell to where calls
  // miss; charged to the whole spin, they cost every slack the same.
  const auto run = [](double delay) {
    SlackController slack({.initial = 10e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.0025});
    for (int i = 1; i <= SlackController::kChooseEvery; ++i)
      slack.on_call({i % 10 == 0 ? 8e-6 : 2e-6, i % 5 == 0, slack.current(), delay}, i * 1e-3);
    return slack.current();
  };
  CHECK(run(1e-3) == Approx(edge_above(8e-6)));
  // Lates charged to the slack's spin alone (~7 us a call, 27 000 per
  // second of spin): covering the 8 us would cost 16 % lates, and the bulk
  // only is covered - right when no delay is spun, what the audit saw when
  // one was (10 % of calls missed).
  CHECK(run(0) == Approx(edge_above(2e-6)));
}

TEST_CASE("the slack keeps a margin for clocks drifting apart until the next choice",
          "[logic][slack]") {
  // A noiseless world: every need 5 us, iterations of 10 us. Two clocks
  // whose bounds each grow by 100 ns until the next choice can drift 200 ns
  // further apart, and the needs with them.
  CHECK(drift_margin(100e-9) == Approx(200e-9));
  CHECK(drift_margin(-1) == 0);
  const auto settle = [](double bound_growth) {
    SlackController slack({.initial = 20e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.0025});
    for (int i = 1; i <= SlackController::kChooseEvery; ++i)
      slack.on_call({5e-6, false, slack.current(), 0, bound_growth}, i * 10e-6);
    return slack;
  };
  const double covering = edge_above(5e-6);
  CHECK(settle(0).current() == Approx(covering));
  CHECK(settle(100e-9).current() == Approx(covering + 200e-9));
  // What the members measure the growth over: 256 iterations of 10 us.
  CHECK(settle(100e-9).margin_horizon() == Approx(256 * 10e-6).epsilon(0.01));
}

TEST_CASE("the slack is chosen at 16, 32, 64, 128 calls, then every 256", "[logic][slack]") {
  std::vector<std::uint64_t> choices;
  for (std::uint64_t calls = 1; calls <= 1024; ++calls)
    if (SlackController::chooses_after(calls)) choices.push_back(calls);
  CHECK(choices == std::vector<std::uint64_t>{16, 32, 64, 128, 256, 512, 768, 1024});

  SlackController slack({.initial = 50e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.005});
  for (int i = 0; i < 32; ++i) slack.seed(1e-6);
  for (int i = 1; i < SlackController::kFirstChoice; ++i) {
    slack.on_call({1e-6, false, 50e-6}, i * 20e-6);
    REQUIRE(slack.current() == 50e-6);
  }
  slack.on_call({1e-6, false, 50e-6}, SlackController::kFirstChoice * 20e-6);
  CHECK(slack.current() == Approx(edge_above(1e-6)));
  CHECK(slack.smallest() == slack.current());
  CHECK(slack.largest() == 50e-6);
  CHECK(slack.initial() == 50e-6);
}

namespace {

// Where a slack beyond a small sample of n needs pays for itself against the
// unseen need (slack_controller.hpp): base / ((n + 1) ln 1000).
double beyond_the_sample(double base, double needs) {
  return base / ((needs + 1) * std::log(1000.0));
}

}  // namespace

TEST_CASE("a small sample counts one need beyond its largest", "[logic][slack]") {
  NeedHistogram needs;
  CHECK(needs.highest_bin() == -1);
  CHECK(with_unseen_need(needs).total() == 0);
  add(needs, 1e-6, 40);
  add(needs, 2e-6, 8);
  CHECK(needs.highest_bin() == NeedHistogram::bin_of(2e-6));
  const NeedHistogram widened = with_unseen_need(needs);
  CHECK(widened.total() == Approx(49));
  CHECK(widened.highest_bin() == NeedHistogram::bin_of(2e-6) + kUnseenNeedBins);
  CHECK(NeedHistogram::upper_edge(widened.highest_bin()) ==
        Approx(1000 * edge_above(2e-6)).epsilon(0.06));
  // 30 ms iterations: a slack of ~88 us (0.3 % of an iteration) is worth it.
  const SlackChoice generous = choose_slack(needs, 30e-3, 0.0025, 100e-9, 1.0, 0);
  CHECK(generous.slack > 0.7 * beyond_the_sample(30e-3, 48));
  CHECK(generous.slack < 1.3 * beyond_the_sample(30e-3, 48));
  // 10 us iterations: it would be a large part of one; the largest seen is
  // covered, and the unseen need is the loss expected.
  const SlackChoice tight = choose_slack(needs, 10e-6, 0.0025, 100e-9, 1.0, 0);
  CHECK(tight.slack == Approx(edge_above(2e-6)));
  CHECK(tight.flagged_rate == Approx(1.0 / 49));
  // Once the needs resolve the budget (800 for 0.25 %), they are the whole
  // story.
  add(needs, 1e-6, 800);
  const SlackChoice resolved = choose_slack(needs, 30e-3, 0.0025, 100e-9, 1.0, 0);
  CHECK(resolved.slack == Approx(edge_above(2e-6)));
  CHECK(resolved.flagged_rate == 0);
}

TEST_CASE("needs an arrival pattern adds are covered after 16 calls", "[logic][slack]") {
  // The warm-up measured 0.6 us in lockstep; with a 100 ms delay every call
  // needs 3.6 us. 100 ms iterations make a missed call dear: covered, and
  // far beyond them.
  SlackController slack({.initial = 1.26e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.0025});
  for (int i = 0; i < 32; ++i) slack.seed(0.6e-6);
  for (int i = 1; i <= SlackController::kFirstChoice; ++i)
    slack.on_call({3.6e-6, false, slack.current(), 0.1}, i * 0.1);
  CHECK(slack.current() > 0.7 * beyond_the_sample(0.1, 48));
  CHECK(slack.current() < 1.3 * beyond_the_sample(0.1, 48));
}

TEST_CASE("an imposed delay is the iteration's cost before one is measured", "[logic][slack]") {
  // A 10 ms pattern: the members know that much of an iteration before the
  // first call, and the slack reaches beyond the warm-up's needs at once
  // (the first calls of such a pattern need 30-40 us, the warm-up 1 us).
  SlackController slack({.initial = 1e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.0025});
  for (int i = 0; i < 32; ++i) slack.seed(0.5e-6);
  slack.expect_base_cost(10e-3);
  CHECK(slack.current() > 40e-6);
  CHECK(slack.current() < 1.3 * beyond_the_sample(10e-3, 32));
  // Nothing known of the iteration: the needs seen.
  SlackController plain({.initial = 1e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.0025});
  for (int i = 0; i < 32; ++i) plain.seed(0.5e-6);
  plain.expect_base_cost(0);
  CHECK(plain.current() == Approx(edge_above(0.5e-6)));
}

TEST_CASE("a miss before the first choice brings the choice forward", "[logic][slack]") {
  // Resynchronized every call (a 30 ms pattern, a 10 ms resync interval),
  // calls need 4 us where the warm-up measured 1 us: the calls after the
  // first two (the first has no iteration cost to weigh a miss with) are
  // covered, not the 16th, and needs beyond them too.
  SlackController slack({.initial = 1e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.0025});
  for (int i = 0; i < 32; ++i) slack.seed(0.5e-6);
  int missed = 0;
  for (int i = 1; i < SlackController::kFirstChoice; ++i) {
    missed += 4e-6 > slack.current() ? 1 : 0;
    slack.on_call({4e-6, false, slack.current()}, i * 0.03);
  }
  CHECK(missed == 2);
  CHECK(slack.current() > 4e-6);
  CHECK(slack.current() < 1e-3);

  // A call that fitted changes nothing before the 16th.
  SlackController calm({.initial = 1e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.0025});
  for (int i = 0; i < 32; ++i) calm.seed(0.5e-6);
  for (int i = 1; i < SlackController::kFirstChoice; ++i)
    calm.on_call({0.9e-6, false, calm.current()}, i * 0.03);
  CHECK(calm.current() == 1e-6);
}

TEST_CASE("auto slack is derived from the measured broadcast latency", "[logic]") {
  const SlackSettings s =
      derive_slack({.median = 2e-6, .p90 = 3e-6}, 0.01, nullptr, nullptr, nullptr);
  CHECK(s.initial == 6e-6);
  CHECK(s.min == 100e-9);
  CHECK(s.max == 10e-3);
  CHECK(s.miss_target == 0.01);
}

TEST_CASE("derived slack has a floor of 100 ns and a ceiling of one second", "[logic]") {
  const SlackSettings tiny =
      derive_slack({.median = 1e-8, .p90 = 2e-8}, 0.005, nullptr, nullptr, nullptr);
  CHECK(tiny.initial == 100e-9);
  CHECK(tiny.min == 100e-9);
  const SlackSettings huge =
      derive_slack({.median = 0.01, .p90 = 0.02}, 0.005, nullptr, nullptr, nullptr);
  CHECK(huge.max == 1.0);
  CHECK(huge.initial == 0.04);
}

TEST_CASE("a few preempted warm-up rounds do not make the first slack milliseconds", "[logic]") {
  // Beside a CPU hog: a median need of 12 us and a 90th percentile of 8.8 ms
  // (a few rounds waited for a descheduled process) made the first slack
  // 17.6 ms, paid by the first 256 calls.
  const SlackSettings s =
      derive_slack({.median = 12e-6, .p90 = 8.8e-3}, 0.0025, nullptr, nullptr, nullptr);
  CHECK(s.initial == Approx(120e-6));
  // Over shared memory (a median of 400 ns) the cap is 100 us: a spread of
  // tens of microseconds keeps its twice-p90.
  const SlackSettings shm =
      derive_slack({.median = 400e-9, .p90 = 30e-6}, 0.0025, nullptr, nullptr, nullptr);
  CHECK(shm.initial == Approx(60e-6));
}

TEST_CASE("explicit slack settings win over derived ones", "[logic]") {
  const double initial = 50e-6, minimum = 20e-6, maximum = 100e-6;
  const SlackSettings s =
      derive_slack({.median = 2e-6, .p90 = 3e-6}, 0.005, &initial, &minimum, &maximum);
  CHECK(s.initial == 50e-6);
  CHECK(s.min == 20e-6);
  CHECK(s.max == 100e-6);
  // An explicit minimum above the derived initial lifts the initial.
  const SlackSettings lifted =
      derive_slack({.median = 2e-6, .p90 = 3e-6}, 0.005, nullptr, &minimum, nullptr);
  CHECK(lifted.initial == 20e-6);
}

TEST_CASE("an explicit slack outside the derived bounds widens them", "[logic]") {
  const double large = 5.0, small = 20e-9;
  const SlackSettings wide =
      derive_slack({.median = 2e-6, .p90 = 3e-6}, 0.005, &large, nullptr, nullptr);
  CHECK(wide.initial == 5.0);
  CHECK(wide.max == 5.0);
  const SlackSettings narrow =
      derive_slack({.median = 2e-6, .p90 = 3e-6}, 0.005, &small, nullptr, nullptr);
  CHECK(narrow.initial == 20e-9);
  CHECK(narrow.min == 20e-9);
}

TEST_CASE("the late rate counts a millisecond of spin it has not seen as late-free",
          "[logic][slack]") {
  CHECK(kLateRatePriorSpin == 1e-3);
  // No spin yet: one late is one per millisecond, not one per nothing.
  CHECK(late_rate(1, 0) == Approx(1000));
  CHECK(std::isfinite(late_rate(1, 0)));
  CHECK(late_rate(0, 0) == 0);
  // Much spin: the plain ratio.
  CHECK(late_rate(1000, 1.0) == Approx(1000 / 1.001));
  CHECK(late_rate(-1, -1) == 0);
}

namespace {

// A program that works `iteration` seconds between barriers: each call needs
// a lognormal time (median `median`, p90 ~2.8x it), every member spinning
// `slack - need` is preempted at `preemptions_per_second`, and 1 % of the
// calls that fit leave late whatever they spun (an interrupt, a wake-up: on
// the VM, 0.8 % of calls late with spins of 0.3 us). The warm-up (lockstep,
// no work) measured needs of 0.6 us. Returns the flagged share
// (missed or late) of the second half and the smallest slack chosen there.
struct LongWork {
  double flagged = 0;
  double smallest_slack = 0;
  double need_p90 = 0;
  double best_fixed = 0;  // the flagged share of the best fixed slack, knowing the truth
};

constexpr double kLateWhateverTheSpin = 0.01;

// min over fixed slacks s of P(need > s) + P(need <= s) p0 + rate E[(s - need)+],
// over `needs`.
double best_fixed_slack_share(std::vector<double> needs, double preemptions_per_second) {
  std::sort(needs.begin(), needs.end());
  const double n = static_cast<double>(needs.size());
  double best = 1, below_sum = 0;
  for (std::size_t i = 0; i < needs.size(); ++i) {
    below_sum += needs[i];
    const double s = needs[i];  // covering needs[0..i]
    const double spin = (s * static_cast<double>(i + 1) - below_sum) / n;
    const double fit = static_cast<double>(i + 1) / n;
    best = std::min(best, 1 - fit + fit * kLateWhateverTheSpin + preemptions_per_second * spin);
  }
  return best;
}
LongWork run_long_work(double iteration, double median, double preemptions_per_second,
                       unsigned seed) {
  std::mt19937_64 random(seed);
  std::lognormal_distribution<double> latency(std::log(median), 0.8);
  std::uniform_real_distribution<double> uniform(0, 1);
  SlackController slack({.initial = 1.5e-6, .min = 100e-9, .max = 10e-3, .miss_target = 0.0025});
  for (int i = 0; i < 32; ++i) slack.seed(0.6e-6);
  constexpr int kCalls = 4000;
  int flagged = 0;
  double smallest = 1, entry = 0;
  std::vector<double> needs;
  for (int i = 0; i < kCalls; ++i) {
    const double need = latency(random);
    const double in_force = slack.current();
    const bool missed = need > in_force;
    const bool late = !missed && uniform(random) < kLateWhateverTheSpin +
                                                       preemptions_per_second * (in_force - need);
    if (i >= kCalls / 2) {
      flagged += missed || late ? 1 : 0;
      smallest = std::min(smallest, in_force);
      needs.push_back(need);
    }
    entry += iteration + in_force;
    slack.on_call({need, late, in_force}, entry);
  }
  const double best = best_fixed_slack_share(needs, preemptions_per_second);
  std::sort(needs.begin(), needs.end());
  return {static_cast<double>(flagged) / (kCalls / 2), smallest, needs[needs.size() * 9 / 10],
          best};
}

}  // namespace

TEST_CASE("long work between barriers does not collapse the slack", "[logic][slack]") {
  // What 1 ms of work between barriers measured on a 2-core VM: needs of
  // 7 us at the median (the warm-up's lockstep 0.6 us), spins preempted
  // ~1000 times a second. Before, one late in a call that had spun a few
  // microseconds made every spin look certain to be preempted; the slack fell
  // to 0.5 us and 99.7 % of calls missed, and never recovered (a missed
  // call spins nothing, so nothing corrected the estimate).
  // The needs' long tail against the preempted spin: no slack flags fewer
  // than ~4 % of these calls (best_fixed), and the controller is within a
  // point of that, the slack above the needs' 90th percentile throughout.
  for (const double iteration : {100e-6, 1e-3, 10e-3, 100e-3}) {
    for (unsigned seed = 1; seed <= 3; ++seed) {
      const LongWork run = run_long_work(iteration, 7e-6, 1000, seed);
      INFO("iteration " << iteration << " seed " << seed << " best fixed " << run.best_fixed);
      CHECK(run.smallest_slack > run.need_p90);
      CHECK(run.flagged < run.best_fixed + 0.01);
    }
  }
  // A heavily preempted spin keeps the slack near the needs' bulk rather
  // than chasing their tail: the lates are what it costs.
  const LongWork preempted = run_long_work(1e-3, 7e-6, 20000, 1);
  INFO("best fixed " << preempted.best_fixed);
  CHECK(preempted.smallest_slack > 7e-6 / 2);
  CHECK(preempted.flagged < preempted.best_fixed + 0.06);  // 35 % against 30 %
}

TEST_CASE("calls that missed more than the needs say never make the slack shrink",
          "[logic][slack]") {
  // Needs of 1 us, then of 8 us; a late in every call that fitted. The lates
  // alone would call for a slack with no spin at all, and the needs before
  // the change say a smaller slack would miss less than this one did.
  SlackController slack({.initial = 2e-6, .min = 100e-9, .max = 1.0, .miss_target = 0.0025});
  for (int i = 0; i < 32; ++i) slack.seed(1e-6);
  double previous = slack.current();
  int missed_since_choice = 0;
  for (int i = 1; i <= 1024; ++i) {
    const double need = i < 8 ? 1e-6 : 8e-6;
    const bool missed = need > slack.current();
    missed_since_choice += missed ? 1 : 0;
    slack.on_call({need, !missed, slack.current()}, i * 1e-3);
    if (slack.current() != previous) {
      if (missed_since_choice > 0) CHECK(slack.current() > previous);
      missed_since_choice = 0;
      previous = slack.current();
    }
  }
  CHECK(slack.current() > 8e-6);
}

TEST_CASE("a stretch of slow calls beside a CPU hog does not hold the slack up", "[logic][slack]") {
  // Two TCP ranks beside two hogs on two cores: calls need ~12 us, and 5 %
  // of them, preempted, 1-12 ms; a spin is preempted too. For 300 calls the
  // machine is slower (needs of 150-300 us, 1 ms apart) and the slack rightly
  // follows. Before, the calls missed afterwards (the preempted 5 %, beyond
  // the budget at any affordable slack) forbade every smaller choice: the
  // slack stayed at 296 us here, a suite run ended at 4.1 ms against needs
  // of 12 us, and traced runs kept one choice for their last 15 000 calls.
  SlackController slack({.initial = 20e-6, .min = 100e-9, .max = 10e-3, .miss_target = 0.0025});
  for (int i = 0; i < 32; ++i) slack.seed(12e-6);
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> uniform(0, 1), preempted(1e-3, 12e-3),
      slower(150e-6, 300e-6);
  std::lognormal_distribution<double> usual(std::log(12e-6), 0.1);
  constexpr int kSlowFrom = 3000, kSlowTo = 3300, kCalls = 20000;
  double entry = 0;
  for (int i = 0; i < kCalls; ++i) {
    const bool slow = i >= kSlowFrom && i < kSlowTo;
    const double need = slow                     ? slower(random)
                        : uniform(random) < 0.05 ? preempted(random)
                                                 : usual(random);
    const double in_force = slack.current();
    const bool late = need <= in_force && uniform(random) < 0.01 + 200 * (in_force - need);
    entry += (slow ? 1e-3 : 20e-6) + in_force;
    slack.on_call({need, late, in_force}, entry);
  }
  CHECK(slack.largest() > 150e-6);  // the slower calls did move it
  CHECK(slack.current() < 100e-6);
}

TEST_CASE("one late in a short spin after missed calls does not collapse the slack",
          "[logic][slack]") {
  // The start of a run with 1 ms of sleep between barriers, as traced on the
  // VM: the warm-up measured 0.6 us in lockstep, the calls need 5-15 us; the
  // first calls miss, the slack grows to cover a few, and one of those few
  // leaves late after a spin of a few hundred nanoseconds. Before, that one
  // late over ~1 us of spin read as 10^6 lates per second of spin: the slack
  // fell to 0.5 us and 99.9 % of the calls missed, for good.
  SlackController slack({.initial = 1e-6, .min = 100e-9, .max = 10e-3, .miss_target = 0.0025});
  for (int i = 0; i < 32; ++i) slack.seed(0.6e-6);
  std::mt19937_64 random(3);
  std::uniform_real_distribution<double> needs(5e-6, 15e-6);
  int missed = 0, fitted = 0;
  for (int i = 1; i <= 2048; ++i) {
    const double need = needs(random);
    const bool fits = need <= slack.current();
    // The first call that fits leaves late.
    const bool late = fits && fitted++ == 0;
    if (i > SlackController::kFirstChoice) missed += fits ? 0 : 1;
    slack.on_call({need, late, slack.current()}, i * 1e-3);
  }
  // Before: 0.6 us from the 8th call to the 256th choice, 12 % missed.
  CHECK(slack.current() > 15e-6);
  CHECK(missed < 2048 / 100);
}

TEST_CASE("calls that change under the slack are followed within tens of calls", "[logic][slack]") {
  // OSU over TCP: 2 000 calls of a small message needing 10-20 us, 20 us
  // apart, then 112 calls of 4 MB, 5 ms apart, needing 25-45 us. The choice
  // every 256 calls, on needs weighed over thousands, kept the small
  // message's slack through the whole size: 20 % of its calls flagged.
  const auto run = [](bool follow) {
    SlackController slack({.initial = 20e-6, .min = 100e-9, .max = 10e-3, .miss_target = 0.0025});
    std::mt19937_64 random(11);
    std::uniform_real_distribution<double> small(10e-6, 20e-6), large(25e-6, 45e-6);
    double entry = 0;
    int missed = 0;
    for (int i = 0; i < 2000; ++i) {
      entry += 20e-6 + slack.current();
      slack.on_call({small(random), false, slack.current()}, entry);
    }
    for (int i = 0; i < 112; ++i) {
      const double need = large(random);
      missed += need > slack.current() ? 1 : 0;
      entry += 5e-3 + slack.current();
      // Without following: what the next scheduled choice would see.
      slack.on_call({need, false, follow ? slack.current() : need}, entry);
    }
    return missed;
  };
  const int followed = run(true);
  CHECK(followed <= 15);  // 10
  // The same calls whose misses the controller is not told of (each call's
  // slack reported as its need): the slack stays put until the 256th call.
  CHECK(run(false) > 40);  // 48
}
