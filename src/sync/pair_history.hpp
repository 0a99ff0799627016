#pragma once
// What one client measured against its reference over several syncs, and
// the model chosen from it (pure). The drift between two clocks is only
// observable over a long baseline: one sync spans a millisecond, the gaps
// between syncs span seconds, so keeping earlier fit points is what turns
// microseconds of error 10 s later into nanoseconds.
#include <deque>
#include <limits>
#include <vector>

#include "clock/linear_model.hpp"
#include "sync/fit.hpp"
#include "sync/settings.hpp"

namespace harmonize::sync {

class PairHistory {
 public:
  // Adds the fit points of the newest sync and forgets batches beyond
  // `max_batches` or older than `max_age` seconds before the newest point.
  // Points whose uncertainty exceeds kStallFactor x the batch's best are
  // dropped first: they were caught in a stall (preemption on a loaded core,
  // a TCP hiccup) and their error can be as large as that uncertainty.
  void add(std::vector<FitPoint> batch, int max_batches, double max_age);
  void clear() { batches_.clear(); }

  // The tightest uncertainty this pair has ever reached (warm-up included):
  // what the path can do when neither process is descheduled.
  double best_uncertainty() const { return best_uncertainty_; }
  void note_uncertainty(double uncertainty);
  // A point far less certain than the pair's best was caught in a stall and
  // is worth measuring again (the caller bounds how often).
  bool stalled(const FitPoint& point) const {
    return point.uncertainty > kStallFactor * best_uncertainty_;
  }
  bool empty() const { return batches_.empty(); }
  std::size_t batches() const { return batches_.size(); }
  std::vector<FitPoint> all_points() const;
  const std::vector<FitPoint>& newest() const { return batches_.back(); }

  static constexpr double kStallFactor = 3.0;

  // Mean RTT to the reference, measured once per pair (Mean-RTT-Offset).
  double mean_rtt = -1;

 private:
  std::deque<std::vector<FitPoint>> batches_;
  double best_uncertainty_ = std::numeric_limits<double>::infinity();
};

// The model for the clock below, from the history (see ModelKind): slope from
// every kept point, intercept through the newest batch so the model is exact
// at the end of this sync even where the drift is not perfectly linear.
clock::LinearModel choose_model(const PairHistory& history, ModelKind kind);

// Shortest span of fit points (seconds) from which `automatic` trusts a slope.
inline constexpr double kMinDriftBaseline = 0.05;

}  // namespace harmonize::sync
