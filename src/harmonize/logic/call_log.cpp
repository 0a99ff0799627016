#include "harmonize/logic/call_log.hpp"

namespace harmonize::logic {
namespace {

constexpr std::size_t kMaxFields = 8;

}  // namespace

std::vector<double> CallLog::pack_for_max() const {
  const std::size_t n = calls_.size();
  std::vector<double> out(kMaxFields * n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = calls_[i].exit_global - calls_[i].delay;
    out[n + i] = calls_[i].exit_truth - calls_[i].truth_delay;
    out[2 * n + i] = calls_[i].enter_truth;
    out[3 * n + i] = calls_[i].missed ? 1.0 : 0.0;
    out[4 * n + i] = calls_[i].late ? 1.0 : 0.0;
    out[5 * n + i] = calls_[i].bound;
    out[6 * n + i] = calls_[i].truth_error;
    out[7 * n + i] = calls_[i].likely;
  }
  return out;
}

std::vector<double> CallLog::pack_for_min() const {
  const std::size_t n = calls_.size();
  std::vector<double> out(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = calls_[i].exit_global - calls_[i].delay;
    out[n + i] = calls_[i].exit_truth - calls_[i].truth_delay;
    out[2 * n + i] = calls_[i].exit_truth;
  }
  return out;
}

CallBatchOutcome combine_batch(std::span<const double> maxima, std::span<const double> minima,
                               std::size_t n, bool with_truth) {
  CallBatchOutcome outcome;
  outcome.exit_skew.reserve(n);
  outcome.clock_bound.reserve(n);
  outcome.clock_likely.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    outcome.exit_skew.push_back(maxima[i] - minima[i]);
    outcome.clock_bound.push_back(maxima[5 * n + i]);
    outcome.clock_likely.push_back(maxima[7 * n + i]);
    if (with_truth) {
      outcome.truth_exit_skew.push_back(maxima[n + i] - minima[n + i]);
      outcome.truth_clock_error.push_back(maxima[6 * n + i]);
      // The last process entered after the first one left: not a barrier.
      if (maxima[2 * n + i] > minima[2 * n + i]) ++outcome.space_violations;
    }
    // A call with a miss counts as missed only: the deadline was wrong for
    // everybody, whoever else also left late.
    if (maxima[3 * n + i] > 0) {
      ++outcome.missed_any;
    } else if (maxima[4 * n + i] > 0) {
      ++outcome.late_any;
    }
  }
  return outcome;
}

}  // namespace harmonize::logic
