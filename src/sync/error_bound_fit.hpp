#pragma once
// The error bound of a pair's clock model, from its fit points (pure,
// exact-tested). Rigorous under one assumption: the true offset between the
// two time sources drifts linearly, at most kMaxRelativeDrift per second
// (clock/error_bound.hpp), over the span of the points (seconds; paper 001
// fig. 2 finds drift linear over ~20 s).
#include <span>

#include "clock/error_bound.hpp"
#include "clock/linear_model.hpp"
#include "sync/fit.hpp"

namespace harmonize::sync {

// The drifts (slopes of the true offset) every line through all the points'
// intervals [offset - bound, offset + bound] can have: for t_i < t_j,
//   (o_j - b_j - o_i - b_i) / (t_j - t_i) <= d <= (o_j + b_j - o_i + b_i) / (t_j - t_i),
// clipped to [-max_drift, max_drift]. Points that admit no such line (the
// offset wandered, or a bound was wrong) give the whole physical range.
// O(n^2): pass a few representatives per sync (PairHistory::representatives).
struct DriftInterval {
  double low = 0;
  double high = 0;
  bool operator==(const DriftInterval&) const = default;
};
DriftInterval drift_interval(std::span<const FitPoint> points, double max_drift);

// A bound on |true offset(t) - model.offset_at(t)|: the error of the clock
// `model` makes. Anchored at the newest point, converted to the time of the
// clock the model makes (model.apply), with
//   rate  = max(|slope - drift.low|, |slope - drift.high|),
//   value = the farther end, seen from the model, of the interval every
//           point proves for the offset at the anchor (its own interval
//           moved along by drifts within `drift`).
// If the points contradict each other even at the widest drift, the best
// single point carried at max_drift: min_k(|model(t_k) - o_k| + b_k +
// rate |at - t_k|). O(n). No points: an infinite bound.
clock::ErrorBound model_error_bound(std::span<const FitPoint> points, const DriftInterval& drift,
                                    const clock::LinearModel& model, double max_drift);

}  // namespace harmonize::sync
