#pragma once
// Job-wide totals over all communicators, shared by the JSON report and the
// summary line so they can never disagree.

#include <cstdint>
#include <span>

#include "report/comm_stats.hpp"

namespace harmonize::report {

struct Totals {
  std::uint64_t communicators = 0;
  std::uint64_t calls = 0;
  std::uint64_t harmonized_calls = 0;
  std::uint64_t not_harmonized_calls = 0;  // passed to the native barrier
  std::uint64_t missed_calls_any = 0;
  double failure_rate = 0.0;  // missed_calls_any / harmonized_calls
  std::uint64_t late_calls_any = 0;
  double late_rate = 0.0;  // late_calls_any / harmonized_calls
  std::uint64_t resyncs = 0;
  double resync_seconds = 0.0;
  Distribution exit_skew;  // all communicators' calls together
  Distribution wait;
};

Totals compute_totals(std::span<const CommSummary> communicators);

}  // namespace harmonize::report
