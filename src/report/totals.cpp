#include "report/totals.hpp"

namespace harmonize::report {

Totals compute_totals(std::span<const CommSummary> communicators) {
  Totals totals;
  for (const CommSummary& c : communicators) {
    ++totals.communicators;
    totals.calls += c.calls;
    totals.harmonized_calls += c.harmonized_calls;
    totals.not_harmonized_calls += c.not_harmonized_calls;
    totals.missed_calls_any += c.missed_calls_any;
    totals.late_calls_any += c.late_calls_any;
    totals.resyncs += c.resyncs;
    totals.resync_seconds += c.resync_seconds;
    totals.exit_skew.merge(c.exit_skew);
    totals.wait.merge(c.wait);
  }
  if (totals.harmonized_calls > 0) {
    const auto harmonized = static_cast<double>(totals.harmonized_calls);
    totals.failure_rate = static_cast<double>(totals.missed_calls_any) / harmonized;
    totals.late_rate = static_cast<double>(totals.late_calls_any) / harmonized;
  }
  return totals;
}

}  // namespace harmonize::report
