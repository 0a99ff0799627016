#include "sync/pair_history.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sync/error_bound_fit.hpp"
#include "sync/likely_error.hpp"

namespace harmonize::sync {

namespace {

// The two lists are one set of measurements: a point goes from both.
void drop_stalled(std::vector<FitPoint>& on_sources, std::vector<FitPoint>& to_world,
                  double factor) {
  double best = std::numeric_limits<double>::infinity();
  for (const FitPoint& p : on_sources)
    if (p.uncertainty > 0) best = std::min(best, p.uncertainty);
  if (!std::isfinite(best)) return;  // uncertainties unknown
  std::size_t kept = 0;
  for (std::size_t i = 0; i < on_sources.size(); ++i) {
    if (on_sources[i].uncertainty > factor * best) continue;
    on_sources[kept] = on_sources[i];
    to_world[kept] = to_world[i];
    ++kept;
  }
  on_sources.resize(kept);
  to_world.resize(kept);
}

}  // namespace

void PairHistory::note_uncertainty(double uncertainty) {
  if (uncertainty > 0) best_uncertainty_ = std::min(best_uncertainty_, uncertainty);
}

void PairHistory::add(std::vector<FitPoint> on_sources, std::vector<FitPoint> to_world,
                      int max_batches, double max_age) {
  // A programming error, never input: dropping the sync without a word hid it.
  if (to_world.size() != on_sources.size())
    throw std::invalid_argument("PairHistory::add: the two lists of one sync differ in length");
  drop_stalled(on_sources, to_world, kStallFactor);
  if (on_sources.empty()) return;
  const double newest_t = on_sources.back().t;
  batches_.push_back(Batch{std::move(on_sources), std::move(to_world)});
  undo_ = Undo{.possible = true, .evicted = {}};
  adds_ += 1;
  while (batches_.size() > 1 && (static_cast<int>(batches_.size()) > max_batches ||
                                 newest_t - batches_.front().on_sources.back().t > max_age)) {
    undo_.evicted.push_back(std::move(batches_.front()));
    batches_.pop_front();
  }
}

void PairHistory::undo_add() {
  if (!undo_.possible) return;
  batches_.pop_back();
  for (auto batch = undo_.evicted.rbegin(); batch != undo_.evicted.rend(); ++batch)
    batches_.push_front(std::move(*batch));
  undo_ = {};
}

std::vector<FitPoint> PairHistory::all_points() const {
  std::vector<FitPoint> points;
  for (const auto& batch : batches_)
    points.insert(points.end(), batch.on_sources.begin(), batch.on_sources.end());
  return points;
}

std::vector<FitPoint> PairHistory::bound_points(std::vector<FitPoint> Batch::*which) const {
  std::vector<FitPoint> points;
  if (batches_.empty()) return points;
  const std::vector<FitPoint>& newest = batches_.back().*which;
  points.reserve(batches_.size() + newest.size());
  for (const auto& batch : batches_) {
    const std::vector<FitPoint>& list = batch.*which;
    const auto tightest =
        std::min_element(list.begin(), list.end(),
                         [](const FitPoint& a, const FitPoint& b) { return a.bound < b.bound; });
    points.push_back(*tightest);
  }
  points.insert(points.end(), newest.begin(), newest.end());
  return points;
}

namespace {

clock::ErrorBound bound_from(std::span<const FitPoint> points, std::size_t batches,
                             const clock::LinearModel& model, double max_drift) {
  const DriftInterval drift = drift_interval(points.first(batches), max_drift);
  return model_error_bound(points, drift, model, max_drift);
}

clock::ErrorBound error_bound_from(std::vector<FitPoint> points, const PairHistory& history,
                                   const clock::LinearModel& model, double max_drift) {
  clock::ErrorBound bound = bound_from(points, history.batches(), model, max_drift);
  // The same maths on the likely half-widths gives the likely bound. A point
  // without one (not set) keeps its proven half-width.
  for (FitPoint& p : points)
    if (p.likely > 0) p.bound = std::min(p.bound, p.likely);
  const clock::ErrorBound likely = bound_from(points, history.batches(), model, max_drift);
  bound.likely_value = likely.value;
  // The intervals' rate takes every sync's half-width as a hard limit, at
  // both ends of the baseline; as a statistic the drift is known ~4x better.
  bound.likely_rate = std::min(
      likely.rate, likely_drift_error(std::span(points).first(history.batches()), model.slope));
  return bound;
}

}  // namespace

clock::ErrorBound error_bound_of(const PairHistory& history, const clock::LinearModel& model,
                                 double max_drift) {
  return error_bound_from(history.bound_points(), history, model, max_drift);
}

clock::ErrorBound pair_error_bound(const PairHistory& history, const clock::LinearModel& pair,
                                   double max_drift) {
  return error_bound_from(history.bound_points_on_sources(), history, pair, max_drift);
}

namespace {

// Offset-only model for the end of the newest batch. A plain mean would sit
// at the batch's middle in time and be stale by drift x half the sync (20 ns
// for 100 ppm and a 0.4 ms sync); the batch's own regression, evaluated at
// its last point, is not - its slope only places the offset, it is never
// extrapolated beyond the batch.
clock::LinearModel offset_at_end_of(const std::vector<FitPoint>& batch, double slope) {
  const LinearFit fit = fit_linear(batch);
  const double end = batch.back().t;
  return clock::LinearModel{slope, fit.model.offset_at(end) - slope * end};
}

}  // namespace

clock::LinearModel choose_model(const PairHistory& history, ModelKind kind, double known_slope) {
  if (history.empty()) return {};
  if (kind == ModelKind::offset_only) return offset_at_end_of(history.newest(), known_slope);
  const auto points = history.all_points();
  const LinearFit fit = fit_linear(points);
  double slope = fit.model.slope;
  if (kind == ModelKind::automatic) {
    // Within one sync (a millisecond) the offsets carry systematic trends -
    // a TCP path warming up, a core changing frequency - that look like a
    // drift of hundreds of ppm and pass any noise test; over TCP a single
    // sync's slope made the error 10 s later worse than no slope at all.
    // So the slope must come from a baseline spanning syncs.
    const double baseline = points.back().t - points.front().t;
    if (history.batches() < 2 || baseline < kMinDriftBaseline)
      return offset_at_end_of(history.newest(), known_slope);
    // And even then it must stand out of the noise: extrapolating noise is
    // worse than none (one machine's shared clock has no drift at all).
    if (!(std::abs(slope) > 2.0 * fit.slope_stderr)) slope = 0.0;
  }
  return recompute_intercept(slope, history.newest());
}

}  // namespace harmonize::sync
