#include "sync/error_bound_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace harmonize::sync {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Interval {
  double low = -kInfinity;
  double high = kInfinity;
  bool empty() const { return low > high; }
};

// Where the true offset at `at` can be, given every point and drifts in `drift`.
Interval offset_at(std::span<const FitPoint> points, double at, const DriftInterval& drift) {
  Interval proven;
  for (const FitPoint& p : points) {
    const double apart = at - p.t;
    const double a = drift.low * apart;
    const double b = drift.high * apart;
    proven.low = std::max(proven.low, p.offset - p.bound + std::min(a, b));
    proven.high = std::min(proven.high, p.offset + p.bound + std::max(a, b));
  }
  return proven;
}

double rate_for(double slope, const DriftInterval& drift) {
  return std::max(std::abs(slope - drift.low), std::abs(slope - drift.high));
}

}  // namespace

DriftInterval drift_interval(std::span<const FitPoint> points, double max_drift) {
  double low = -max_drift;
  double high = max_drift;
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t j = i + 1; j < points.size(); ++j) {
      const bool ordered = points[i].t <= points[j].t;
      const FitPoint& early = ordered ? points[i] : points[j];
      const FitPoint& late = ordered ? points[j] : points[i];
      const double span = late.t - early.t;
      if (!(span > 0)) continue;
      const double per_second = 1.0 / span;  // one division per pair: this runs in every sync
      const double moved = late.offset - early.offset;
      const double slack = late.bound + early.bound;
      high = std::min(high, (moved + slack) * per_second);
      low = std::max(low, (moved - slack) * per_second);
    }
  }
  if (low > high) return DriftInterval{-max_drift, max_drift};
  return DriftInterval{low, high};
}

clock::ErrorBound model_error_bound(std::span<const FitPoint> points, const DriftInterval& drift,
                                    const clock::LinearModel& model, double max_drift) {
  if (points.empty()) return clock::ErrorBound{0.0, kInfinity, 0.0};
  double at = points.front().t;
  for (const FitPoint& p : points) at = std::max(at, p.t);
  const double predicted = model.offset_at(at);

  const Interval proven = offset_at(points, at, drift);
  if (!proven.empty()) {
    const double value =
        std::max(std::abs(proven.low - predicted), std::abs(proven.high - predicted));
    return clock::ErrorBound{model.apply(at), value, rate_for(model.slope, drift)};
  }
  // The drift interval came from a few representatives; all the points may
  // still fit a line of another drift within the physical range.
  const DriftInterval widest{-max_drift, max_drift};
  const double rate = rate_for(model.slope, widest);
  const Interval widened = offset_at(points, at, widest);
  if (!widened.empty()) {
    const double value =
        std::max(std::abs(widened.low - predicted), std::abs(widened.high - predicted));
    return clock::ErrorBound{model.apply(at), value, rate};
  }
  double value = kInfinity;
  for (const FitPoint& p : points)
    value =
        std::min(value, std::abs(model.offset_at(p.t) - p.offset) + p.bound + rate * (at - p.t));
  return clock::ErrorBound{model.apply(at), value, rate};
}

}  // namespace harmonize::sync
