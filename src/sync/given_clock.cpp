#include "sync/given_clock.hpp"

#include <cmath>
#include <vector>

#include "sync/clock_check.hpp"

namespace harmonize::sync {
namespace {

// What rank 0 tells the others: bound, worst offset, worst rank, beyond,
// checked, then the named ranks.
constexpr std::size_t kHead = 5;
constexpr std::size_t kFields = kHead + GivenClockReport::kNamed;

GivenClockReport summarize(const std::vector<ClockCheck>& checks) {
  GivenClockReport report;
  report.active = true;
  report.checked = static_cast<int>(checks.size());
  for (const ClockCheck& check : checks) {
    const double reach = std::abs(check.offset) + check.uncertainty;
    if (reach > report.bound) {
      report.bound = reach;
      report.worst_offset = check.offset;
      report.worst_rank = check.rank;
    }
    // Beyond even if the truth sits at the near edge of the measurement.
    if (std::abs(check.offset) - check.uncertainty <= kGivenClockTolerance) continue;
    if (report.beyond < GivenClockReport::kNamed)
      report.beyond_ranks[static_cast<std::size_t>(report.beyond)] = check.rank;
    report.beyond += 1;
  }
  return report;
}

}  // namespace

clock::GlobalClock check_given_clock(Transport& group, const clock::GlobalClock& base,
                                     GivenClockReport& report) {
  const std::vector<int> sampled = sample_ranks(group.size());
  const std::vector<ClockCheck> checks = check_global_clock(group, base, sampled);
  std::vector<double> shared(kFields, 0.0);
  if (group.rank() == 0) {
    const GivenClockReport mine = summarize(checks);
    shared = {mine.bound, mine.worst_offset, static_cast<double>(mine.worst_rank),
              static_cast<double>(mine.beyond), static_cast<double>(mine.checked)};
    for (const int rank : mine.beyond_ranks) shared.push_back(static_cast<double>(rank));
  }
  group.broadcast_from_root(shared, 0);
  report = {};
  report.active = true;
  report.bound = shared[0];
  report.worst_offset = shared[1];
  report.worst_rank = static_cast<int>(shared[2]);
  report.beyond = static_cast<int>(shared[3]);
  report.checked = static_cast<int>(shared[4]);
  for (std::size_t i = 0; i < report.beyond_ranks.size(); ++i)
    report.beyond_ranks[i] = static_cast<int>(shared[kHead + i]);
  // The reference has no error; the others are within the worst measured
  // (the unsampled ones assumed alike: at most kMaxCheckedRanks are measured).
  const double value = group.rank() == 0 ? 0.0 : report.bound;
  const clock::ErrorBound bound{
      .at = base.now(), .value = value, .rate = 0, .likely_value = value, .likely_rate = 0};
  return base.with_models(base.models().with_bound(bound));
}

}  // namespace harmonize::sync
