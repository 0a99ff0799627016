#include "harmonize/logic/slack_controller.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

namespace harmonize::logic {

int NeedHistogram::bin_of(double need) {
  if (!(need > kLowest)) return 0;  // also NaN: a need is never lost
  const double bin = std::floor(std::log(need / kLowest) / std::log(kRatio));
  return static_cast<int>(std::min(bin, static_cast<double>(kBins - 1)));
}

namespace {

// The bins' upper edges, computed once: every choice reads all of them.
const std::array<double, NeedHistogram::kBins>& upper_edges() {
  static const std::array<double, NeedHistogram::kBins> edges = [] {
    std::array<double, NeedHistogram::kBins> e{};
    for (int bin = 0; bin < NeedHistogram::kBins; ++bin)
      e[static_cast<std::size_t>(bin)] =
          NeedHistogram::kLowest * std::pow(NeedHistogram::kRatio, bin + 1);
    return e;
  }();
  return edges;
}

}  // namespace

double NeedHistogram::upper_edge(int bin) {
  return upper_edges()[static_cast<std::size_t>(bin)];
}

void NeedHistogram::add(double need, double weight) {
  counts_[static_cast<std::size_t>(bin_of(need))] += weight;
  total_ += weight;
}

void NeedHistogram::scale(double factor) {
  for (double& count : counts_) count *= factor;
  total_ *= factor;
}

namespace {

// The budget is kept once the histogram holds this many needs per missed
// call the budget allows (800 needs for 0.25 %).
constexpr double kBudgetResolution = 2.0;

double cost_of_valid_call(double base_cost, double slack, double flagged_rate) {
  return flagged_rate >= 1 ? std::numeric_limits<double>::infinity()
                           : (base_cost + slack) / (1 - flagged_rate);
}

}  // namespace

int NeedHistogram::highest_bin() const {
  for (int bin = kBins; bin-- > 0;)
    if (counts_[static_cast<std::size_t>(bin)] > 0) return bin;
  return -1;
}

NeedHistogram with_unseen_need(const NeedHistogram& needs) {
  NeedHistogram widened = needs;
  const int highest = needs.highest_bin();
  if (highest < 0) return widened;
  const int last = std::min(NeedHistogram::kBins - 1, highest + kUnseenNeedBins);
  const double weight = 1.0 / (last - highest);
  for (int bin = highest + 1; bin <= last; ++bin)
    widened.add(NeedHistogram::upper_edge(bin) / std::sqrt(NeedHistogram::kRatio), weight);
  return widened;
}

SlackChoice choose_slack(const NeedHistogram& seen, double base_cost, double miss_target,
                         double min, double max, double fallback, double lates_per_spin_second,
                         double fixed_spin) {
  if (!(seen.total() > 0)) return {std::clamp(fallback, min, max), 0, 0};
  // Too few needs to resolve the budget: one hiccup among a few hundred
  // calls would look like a miss rate to be paid for by every call, and the
  // largest need seen is no limit.
  const bool resolved = seen.total() >= kBudgetResolution / miss_target;
  const NeedHistogram needs = resolved ? seen : with_unseen_need(seen);
  const double total = needs.total();
  constexpr std::size_t kBins = NeedHistogram::kBins;
  static const double kInverseSqrtRatio = 1 / std::sqrt(NeedHistogram::kRatio);
  // above[b]: the weight of the needs in bins b and higher; below[b] and
  // below_sum[b]: the weight of bins under b, and of their needs (each at its
  // bin's geometric centre), for the expected spin E[(slack - need)+].
  std::array<double, kBins + 1> above{}, below{}, below_sum{};
  for (std::size_t bin = kBins; bin-- > 0;) above[bin] = above[bin + 1] + needs.count(int(bin));
  for (std::size_t bin = 0; bin < kBins; ++bin) {
    const double centre = upper_edges()[bin] * kInverseSqrtRatio;
    below[bin + 1] = below[bin] + needs.count(int(bin));
    below_sum[bin + 1] = below_sum[bin] + needs.count(int(bin)) * centre;
  }
  // A slack covering bins [0, covered) and charged the others as misses.
  const auto choice = [&](double slack, std::size_t covered) {
    const double spin = std::max(0.0, (slack * below[covered] - below_sum[covered]) / total);
    const double late = std::min(1.0, lates_per_spin_second * (spin + fixed_spin));
    const double missed = above[covered] / total;
    return SlackChoice{slack, std::min(1.0, missed + late), missed};
  };
  // A slack inside a bin is charged the whole bin (conservative).
  const auto at = [&](double slack) {
    return choice(slack, static_cast<std::size_t>(NeedHistogram::bin_of(slack)));
  };

  // Every candidate slack, smallest first: the minimum, each bin's upper
  // edge in between, the maximum.
  std::array<SlackChoice, kBins + 2> storage;  // no allocation inside MPI_Barrier
  std::size_t count = 0;
  storage[count++] = at(min);
  for (std::size_t bin = 0; bin < kBins; ++bin) {
    const double edge = upper_edges()[bin];
    if (edge <= min) continue;
    if (edge >= max) break;
    storage[count++] = choice(edge, bin + 1);
  }
  if (max > min) storage[count++] = at(max);
  const std::span<const SlackChoice> candidates(storage.data(), count);
  const auto cost = [&](const SlackChoice& c) {
    return cost_of_valid_call(base_cost, c.slack, c.flagged_rate);
  };
  const SlackChoice cheapest = *std::min_element(
      candidates.begin(), candidates.end(),
      [&](const SlackChoice& a, const SlackChoice& b) { return cost(a) < cost(b); });
  // Every slack loses every call: the one expected to lose fewest; among
  // equals the largest, whose misses leave closest to the deadline.
  if (!std::isfinite(cost(cheapest)))
    return *std::min_element(candidates.begin(), candidates.end(),
                             [](const SlackChoice& a, const SlackChoice& b) {
                               return a.flagged_rate < b.flagged_rate ||
                                      (a.flagged_rate == b.flagged_rate && a.slack > b.slack);
                             });
  if (!resolved) return cheapest;

  // Affordable: no smaller than the cheapest slack (an expensive iteration
  // buys fewer misses than the budget allows) and costing at most twice as
  // much. The smallest affordable slack within the budget wins; if none is,
  // the budget counts the losses an affordable slack can prevent: the fewest
  // any achieves, plus the budget.
  constexpr double kAffordable = 2.0;
  const auto affordable = [&](const SlackChoice& c) {
    return c.slack >= cheapest.slack && cost(c) <= kAffordable * cost(cheapest);
  };
  double fewest = cheapest.flagged_rate;
  for (const SlackChoice& c : candidates)
    if (affordable(c)) fewest = std::min(fewest, c.flagged_rate);
  const double allowed = fewest <= miss_target ? miss_target : fewest + miss_target;
  for (const SlackChoice& c : candidates)
    if (affordable(c) && c.flagged_rate <= allowed) return c;
  return cheapest;
}

double missed_share(const NeedHistogram& needs, double slack) {
  if (!(needs.total() > 0)) return 0;
  double above = 0;
  for (int bin = NeedHistogram::bin_of(slack); bin < NeedHistogram::kBins; ++bin)
    above += needs.count(bin);
  return above / needs.total();
}

double late_rate(double lates, double spin_seconds) {
  return std::max(0.0, lates) / (std::max(0.0, spin_seconds) + kLateRatePriorSpin);
}

double drift_margin(double bound_growth) {
  return 2 * std::max(0.0, bound_growth);
}

SlackController::SlackController(const SlackSettings& settings)
    : settings_(settings),
      slack_(std::clamp(settings.initial, settings.min, settings.max)),
      largest_(slack_),
      smallest_(slack_) {}

bool SlackController::chooses_after(std::uint64_t calls) {
  if (calls < kChooseEvery) return calls >= kFirstChoice && (calls & (calls - 1)) == 0;
  return calls % kChooseEvery == 0;
}

void SlackController::on_call(const Outcome& outcome, double last_entry) {
  if (has_previous_entry_) {
    // What an iteration costs besides the slack that was in force.
    periods_[static_cast<std::size_t>(periods_seen_ % kPeriods)] =
        std::max(0.0, last_entry - previous_entry_ - outcome.slack);
    periods_seen_ += 1;
  }
  previous_entry_ = last_entry;
  has_previous_entry_ = true;
  bound_growth_ = outcome.bound_growth;
  if (outcome.need >= 0) {
    needs_.add(outcome.need);
    // A delayed member spins its delay after the deadline: preempted there,
    // it leaves late as surely as in the slack's spin. Left out, a pattern's
    // lates (a 1 ms delay spun beside other load) were charged to spins of
    // microseconds, and the slack fell to its minimum, where calls miss.
    const double delay = std::max(0.0, outcome.delay);
    spin_seconds_ += std::max(0.0, outcome.slack - outcome.need) + delay;
    delay_seconds_ += delay;
    outcomes_ += 1;
    lates_ += outcome.late ? 1 : 0;
  }
  calls_ += 1;
  if (calls_ % kHalfLife == 0) {
    needs_.scale(0.5);
    spin_seconds_ *= 0.5;
    delay_seconds_ *= 0.5;
    outcomes_ *= 0.5;
    lates_ *= 0.5;
  }
  // Until the first scheduled choice the slack rests on the warm-up's
  // lockstep needs; a call that needed more says they do not describe the
  // calls, and waiting for the choice at 16 lost up to 16 calls (a 30 ms
  // pattern resynchronizing every call needs 4 us against the warm-up's 1).
  const bool missed = outcome.need > outcome.slack;
  calls_since_choice_ += 1;
  misses_since_choice_ += missed ? 1 : 0;
  // Far more misses than the needs predicted for this slack: the calls have
  // changed (a benchmark moved to a larger message, whose calls need more),
  // and the needs before them say little. They weigh half, and the choice
  // comes now, not up to 256 calls later (OSU's 100 iterations of a size).
  const bool changed =
      calls_ >= kFirstChoice && misses_since_choice_ >= kMissesForChange &&
      misses_since_choice_ > kChangeFactor * predicted_miss_rate_ * calls_since_choice_;
  if (changed) {
    // The iterations changed too: their cost is the last few's.
    needs_.scale(kChangeForget);
    choose(kPeriodsAfterChange);
  } else if (chooses_after(calls_) || (missed && calls_ < kFirstChoice)) {
    choose(kPeriods);
  }
}

void SlackController::expect_base_cost(double seconds) {
  expected_base_cost_ = std::max(0.0, seconds);
  choose(kPeriods);
}

void SlackController::choose(int recent_periods) {
  double base_cost = expected_base_cost_;
  if (periods_seen_ > 0) {
    // The median of the last n periods (the ring's newest is at
    // periods_seen_ - 1).
    const int n = std::min({periods_seen_, kPeriods, std::max(1, recent_periods)});
    std::array<double, kPeriods> sorted{};
    for (int i = 0; i < n; ++i)
      sorted[static_cast<std::size_t>(i)] =
          periods_[static_cast<std::size_t>((periods_seen_ - 1 - i) % kPeriods)];
    std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.begin() + n);
    base_cost = sorted[static_cast<std::size_t>(n / 2)];
  }
  const double lates_per_spin_second = late_rate(lates_, spin_seconds_);
  const double mean_delay = outcomes_ > 0 ? delay_seconds_ / outcomes_ : 0;
  const SlackChoice choice = choose_slack(needs_, base_cost, settings_.miss_target, settings_.min,
                                          settings_.max, slack_, lates_per_spin_second, mean_delay);
  const double chosen = choice.slack;
  // A need includes how far two members' clocks disagree, and between syncs
  // that grows with their bounds: needs that fitted the slack when it was
  // chosen outgrow it before the next choice. In a noiseless simulation
  // (needs constant to the nanosecond) that was every miss: 167 of 1 000
  // calls at 64 ranks, each by at most 29 ns.
  base_cost_ = base_cost;
  double next = std::min(settings_.max, chosen + drift_margin(bound_growth_));
  // A smaller slack misses at least as often as the one in force. If the
  // calls since the last choice missed more often, and beyond the budget,
  // than the needs say the smaller slack would, the needs are wrong (a
  // choice misled by its estimates, issue 43): the slack does not shrink.
  // Misses the needs do account for are no reason: beside a CPU hog the
  // preempted calls miss beyond the budget at any affordable slack, and
  // holding on every such choice kept a slack chosen once for good.
  const bool shrinks = next < slack_;
  const double missed_before = static_cast<double>(misses_since_choice_) /
                               static_cast<double>(std::max(1, calls_since_choice_));
  const bool held = shrinks && missed_before > std::max(settings_.miss_target, choice.missed_rate);
  if (held) next = slack_;
  misses_since_choice_ = 0;
  calls_since_choice_ = 0;
  // What the slack in force is expected to miss, at least the budget: a
  // change of the calls is told by misses beyond it.
  predicted_miss_rate_ =
      std::max(settings_.miss_target, held ? missed_share(needs_, next) : choice.missed_rate);
  slack_ = next;
  largest_ = std::max(largest_, slack_);
  smallest_ = std::min(smallest_, slack_);
}

SlackSettings derive_slack(const MeasuredLatency& latency, double miss_target,
                           const double* explicit_initial, const double* explicit_min,
                           const double* explicit_max) {
  // Below ~100 ns a clock read and a cache miss already eat the slack.
  constexpr double kFloor = 100e-9;
  constexpr double kCeiling = 1.0;
  SlackSettings s;
  s.miss_target = miss_target;
  s.min = explicit_min ? *explicit_min : kFloor;
  s.max = explicit_max
              ? *explicit_max
              : std::min(kCeiling, std::max(1000 * std::max(latency.median, kFloor), 10e-3));
  // Twice the 90th percentile covers the agreement and the spread of its
  // arrival until the first choice (256 calls in) replaces it. At most ten
  // medians, or 100 us if that is more: beside a CPU hog, 4 of the 32 rounds
  // preempted made it 17.6 ms, spun 256 times (4.5 s) before the first
  // choice; below 100 us the first calls' misses cost more than their spin.
  constexpr double kMediansAtMost = 10;
  constexpr double kCapFloor = 100e-6;
  const double cap = std::max(kCapFloor, kMediansAtMost * latency.median);
  s.initial =
      explicit_initial ? *explicit_initial : std::max(kFloor, std::min(2 * latency.p90, cap));
  // An explicit slack outside the derived bounds widens them rather than
  // being silently clamped (explicit bounds were checked against it).
  if (explicit_initial && !explicit_min) s.min = std::min(s.min, s.initial);
  if (explicit_initial && !explicit_max) s.max = std::max(s.max, s.initial);
  s.max = std::max(s.max, s.min);
  s.initial = std::clamp(s.initial, s.min, s.max);
  return s;
}

}  // namespace harmonize::logic
