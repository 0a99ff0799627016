#pragma once
// What one client measured against its reference over several syncs, and
// the model chosen from it (pure). The drift between two clocks is only
// observable over a long baseline: one sync spans a millisecond, the gaps
// between syncs span seconds, so keeping earlier fit points is what turns
// microseconds of error 10 s later into nanoseconds.
// Every point is kept twice: between the two time sources (what the model is
// fitted on: physical, linear, untouched by either side's resyncs) and
// against the world reference (the offset to the reference's clock, widened
// by that clock's bound when measured: what bounds the error directly, under
// the physical drift limit, sync/error_bound_fit.hpp).
#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

#include "clock/error_bound.hpp"
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
  // The two lists are one set of measurements (throws std::invalid_argument
  // if their lengths differ).
  void add(std::vector<FitPoint> on_sources, std::vector<FitPoint> to_world, int max_batches,
           double max_age);
  // One set of points for both (tests; a pair whose clocks are its sources).
  void add(const std::vector<FitPoint>& batch, int max_batches, double max_age) {
    add(batch, batch, max_batches, max_age);
  }
  void clear() {
    batches_.clear();
    undo_ = {};
  }
  // How many add() calls kept a batch: a sync that added to this history
  // shows as a change of it.
  std::uint64_t adds() const { return adds_; }
  // The newest add() leaves again and the batches it pushed out come back:
  // the clock made from it was refused (much worse than the one kept), and
  // later fits must not lean on the batch that made it. Once per add();
  // nothing happens after a clear() or a second call.
  void undo_add();

  // A point's uncertainty: the tightest this pair ever reaches (warm-up
  // included) is what the path can do when neither process is descheduled.
  void note_uncertainty(double uncertainty);
  // A point far less certain than the pair's best was caught in a stall and
  // is worth measuring again (the caller bounds how often).
  bool stalled(const FitPoint& point) const {
    return point.uncertainty > kStallFactor * best_uncertainty_;
  }
  bool empty() const { return batches_.empty(); }
  std::size_t batches() const { return batches_.size(); }
  // Every point on the sources (what the model is fitted on).
  std::vector<FitPoint> all_points() const;
  // What an error bound is computed from, in one allocation: the tightest
  // point of every batch (oldest first; they bound the drift), then every
  // point of the newest batch; against the world reference or on the sources.
  std::vector<FitPoint> bound_points() const { return bound_points(&Batch::to_world); }
  std::vector<FitPoint> bound_points_on_sources() const { return bound_points(&Batch::on_sources); }
  const std::vector<FitPoint>& newest() const { return batches_.back().on_sources; }

  static constexpr double kStallFactor = 3.0;

  // Mean RTT to the reference, measured once per pair (Mean-RTT-Offset).
  double mean_rtt = -1;

 private:
  struct Batch {
    std::vector<FitPoint> on_sources;
    std::vector<FitPoint> to_world;
  };
  std::vector<FitPoint> bound_points(std::vector<FitPoint> Batch::*which) const;

  struct Undo {
    bool possible = false;
    std::deque<Batch> evicted;  // by the newest add(), oldest first
  };

  std::deque<Batch> batches_;
  Undo undo_;
  std::uint64_t adds_ = 0;
  double best_uncertainty_ = std::numeric_limits<double>::infinity();
};

// The model between the two sources, from the history (see ModelKind): slope
// from every kept point, intercept through the newest batch so the model is
// exact at the end of this sync even where the drift is not perfectly linear.
// Where the history cannot tell the drift (offset-only, or a baseline too
// short for `automatic`), the slope is `known_slope`: what the two clocks'
// own models already say of it (0 between raw sources), so a sync that
// learns no drift keeps the drift its clocks knew.
clock::LinearModel choose_model(const PairHistory& history, ModelKind kind,
                                double known_slope = 0.0);

// The error bound of the clock `model` makes against the clock the history's
// points are relative to (the world reference, as HCA3 widens them), under
// linear drift of at most `max_drift` (sync/error_bound_fit.hpp), from
// bound_points(): the drift from the tightest point of each sync, the offset
// at the newest point from those and the newest sync's points. Leaving the
// other points of older syncs out only loosens the bound (fewer constraints),
// and they rarely constrain it - carried over seconds by the drift's
// uncertainty they are wider than the newest ones - while this runs, with
// cold caches, inside every sync (1.5-2 us with all 64 points here).
// Two points of one sync are a millisecond apart: the drift they bound
// (bounds / span, ~1e-3) is far beyond the physical maximum, so only pairs
// across syncs narrow the drift interval.
// The likely bound (clock/error_bound.hpp) is the same maths on the points'
// likely half-widths.
clock::ErrorBound error_bound_of(const PairHistory& history, const clock::LinearModel& model,
                                 double max_drift = clock::kMaxRelativeDrift);
// The same on the sources: how far `pair` (the model between the two
// sources) can be from the reference's source, anchored on its time.
clock::ErrorBound pair_error_bound(const PairHistory& history, const clock::LinearModel& pair,
                                   double max_drift = clock::kMaxRelativeDrift);

// Shortest span of fit points (seconds) from which `automatic` trusts a
// slope, over at least two syncs.
inline constexpr double kMinDriftBaseline = 0.005;

}  // namespace harmonize::sync
