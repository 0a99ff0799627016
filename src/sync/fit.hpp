#pragma once
// Least-squares fitting of clock offsets (pure, exact-tested).
#include <span>

#include "clock/linear_model.hpp"

namespace harmonize::sync {

// Offset (local - reference) measured at local time t. `uncertainty` is the
// half-width of the interval the measurement's exchanges bound the offset by
// (SKaMPI); 0 means unknown. Fits weight points by 1/uncertainty^2, so one
// fit point caught in a network stall (a 200 us round trip among 1 us ones)
// cannot drag the model; points of unknown uncertainty weigh 1.
// `bound` is what the error bounds rest on: the true offset at t lies within
// offset +- bound, proven (drift during the exchanges included). Mean-RTT
// points have one too, though their uncertainty is unknown. HCA3 widens it by
// the reference's own bound, so that in a pair's history it is relative to
// the world reference (sync/error_bound_fit.hpp).
// `likely` is the 99 % half-width (sync/likely_error.hpp), set once the
// point's sync is complete; 0 means not set, and the proven bound stands.
struct FitPoint {
  double t = 0;
  double offset = 0;
  double uncertainty = 0;
  double bound = 0;
  double likely = 0;
};

double weight_of(const FitPoint& point);

struct LinearFit {
  clock::LinearModel model;
  double slope_stderr = 0;  // infinite when it cannot be estimated (n < 3 or no spread)
};

// Weighted least squares of offset over t. The x values are centred before
// summing: raw monotonic times (~1e6 s) squared would lose the microseconds.
// n == 0: zero model; n == 1 or all t equal: offset-only through the mean.
LinearFit fit_linear(std::span<const FitPoint> points);

// Keeps `slope` and moves the intercept so that the model passes through the
// weighted mean of `anchor` (paper 001 Alg. 2 COMPUTE_AND_SET_INTERCEPT, with the
// newest fit points instead of one extra measurement).
clock::LinearModel recompute_intercept(double slope, std::span<const FitPoint> anchor);

}  // namespace harmonize::sync
