#pragma once
// The 99 % half-width of a fit point (pure, exact-tested): what the clock
// error is below at 99 % of checks, where the proven bound
// (sync/offset_estimate.hpp) says what it can never exceed.
//
// The proven half-width is half the fastest round trip: the path could be
// that asymmetric and nothing in the timestamps says it is not. Real paths
// are far more symmetric, and how far a measurement of the offset lands from
// the truth shows in how far the measurements of one sync scatter around
// their own line. So the likely half-width is kLikelyCoverage times that
// scatter, plus a share of the proven half-width for an asymmetry every
// exchange shares (which no scatter can show: HARMONIZE_PATH_ASYMMETRY, 10 %
// unless the operator knows the paths better), plus the read allowance, and
// never more than the proven half-width. With fewer than kMinScatterPoints
// points there is no scatter to see: the proven half-width stands.
// docs/clock-error.md gives the measurements behind both numbers.
#include <span>

#include "sync/fit.hpp"

namespace harmonize::sync {

inline constexpr double kLikelyCoverage = 3.0;
inline constexpr std::size_t kMinScatterPoints = 3;
inline constexpr std::size_t kMinDriftSyncs = 3;

// Root mean square of the offsets' residuals about the batch's own weighted
// line, over n - 2 degrees of freedom (a line has two). Infinite below
// kMinScatterPoints points.
double offset_scatter(std::span<const FitPoint> batch);

// Sets every point's `likely` from the batch's scatter and its own `bound`
// (both still relative to the reference's clock: before the reference's
// own bounds widen them), `path_asymmetry` of the bound being kept for the
// asymmetry no scatter shows.
void assign_likely_widths(std::span<FitPoint> batch, double path_asymmetry);

// How fast the clock's likely error grows: the drift the syncs' points show,
// taken as a statistic rather than as intervals. One point per sync (the
// `representatives`, each with its likely half-width) is a measurement of the
// offset with standard deviation likely / kLikelyCoverage; their weighted
// least-squares line has a slope of known variance, and the model's error
// grows at most at |model_slope - that slope| + kLikelyCoverage x its
// standard deviation. An asymmetry every sync shares moves all of them
// alike and no slope. Where the syncs scatter about that line by more than
// their widths say, the deviation grows by the Birge ratio (sqrt of
// chi-square per degree of freedom). Infinite with fewer than
// kMinDriftSyncs syncs (no degree of freedom to check the widths with) or
// points whose likely half-width is unknown: then only the intervals can say.
double likely_drift_error(std::span<const FitPoint> representatives, double model_slope);

// A point's likely half-width widened by its reference's likely error: the
// two are independent (different pairs, different exchanges), so their
// variances add, where proven bounds must add as worst cases.
double compose_likely(double pair, double reference);

}  // namespace harmonize::sync
