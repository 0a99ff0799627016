#include "sync/hca3.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sync/likely_error.hpp"
#include "sync/offset_measure.hpp"

namespace harmonize::sync {
namespace {

int floor_log2(int value) {
  int log = 0;
  while ((2 << log) <= value) ++log;
  return log;
}

// How long after a sync the two candidate bounds are compared at (below):
// the order of the longest resync interval.
constexpr double kBoundHorizon = 1.0;

// The tighter of two honest bounds of one clock, anchored alike, a horizon
// ahead: the proven and the likely one each.
clock::ErrorBound tighter(clock::ErrorBound bound, const clock::ErrorBound& other) {
  const double horizon = bound.at + kBoundHorizon;
  if (other.at_time(horizon) < bound.at_time(horizon)) {
    bound.value = other.value;
    bound.rate = other.rate;
  }
  if (other.likely_at(horizon) < bound.likely_at(horizon)) {
    bound.likely_value = other.likely_value;
    bound.likely_rate = other.likely_rate;
  }
  return bound;
}

// The clock's bound, two ways. Composed: the pair's model between the two
// sources, bounded on the sources, plus the reference's own bound (proven:
// worst cases add; likely: variances), and their rates; after a few syncs
// the pair knows its drift to a fraction of a ppm, and this is the tight
// one. Direct: the points against the world reference (each widened by the
// reference's bound when measured) under the physical drift limit, which
// caps the rate at 100 ppm however deep the tree, where composing one
// unknown drift per level would add 100 ppm a level after a single sync.
// `served` is the newest measurement; the scale turns seconds of the
// reference's source into seconds of its clock (1 - its slope, taken as
// 1 + |slope| so a bound stays a bound).
clock::ErrorBound bound_of_clock(const PairHistory& history, const clock::LinearModel& pair,
                                 const OffsetMeasurement& served) {
  const clock::ErrorBound own = pair_error_bound(history, pair);
  const clock::ErrorBound& reference = served.reference_error;
  const double scale = 1.0 + std::abs(served.reference_model.slope);
  const double at = served.reference_model.apply(own.at);
  const clock::ErrorBound composed{
      at, scale * own.value + reference.at_time(at), scale * own.rate + reference.rate,
      compose_likely(scale * own.likely_value, reference.likely_at(at)),
      scale * own.likely_rate + std::min(reference.rate, reference.likely_rate)};
  const clock::ErrorBound direct =
      error_bound_of(history, clock::then(pair, served.reference_model));
  return tighter(composed, direct);
}

// The bound of the clock `model` makes on top of `clk`, given the pair's.
// When `clk` itself came out of a sync (a sub-communicator's base is the
// world clock), its own bound plus what the model moves it by is another
// honest bound, and usually the one that grows slower: the world clock
// knows its drift from a long history while a new pair knows nothing of it
// yet.
clock::ErrorBound bound_for(const clock::ErrorBound& pair, const clock::LinearModel& model,
                            const clock::GlobalClock& clk) {
  if (clk.models().depth() == 0) return pair;  // a raw source: its (zero) bound means nothing
  const double below = pair.at + model.offset_at(pair.at);  // the anchor on clk
  const double moved_by = std::abs(model.offset_at(below));
  const clock::ErrorBound& base = clk.error_bound();
  return tighter(
      pair, clock::ErrorBound{pair.at, base.at_time(below) + moved_by,
                              base.rate + std::abs(model.slope), base.likely_at(below) + moved_by,
                              std::min(base.rate, base.likely_rate) + std::abs(model.slope)});
}

// A point measured between `mine` and the reference's clock, moved onto the
// two time sources (`source_of_mine`, `source_of_reference`: the inverse
// models of the two clocks). Between sources the offset is the physical
// one, linear over seconds; between the clocks it jumps whenever either
// side's models change, and a slope fitted across syncs would take each
// resync of the reference (its error moving by a few hundred ns, 10 ms
// apart) for tens of ppm of drift.
FitPoint on_sources(FitPoint point, const clock::LinearModel& source_of_mine,
                    const clock::LinearModel& source_of_reference) {
  const double reference_time = point.t - point.offset;
  const double scale = 1.0 + std::abs(source_of_reference.slope);  // seconds of its source
  point.t = source_of_mine.apply(point.t);
  point.offset = point.t - source_of_reference.apply(reference_time);
  point.uncertainty *= scale;
  point.bound *= scale;
  point.likely *= scale;
  return point;
}

// The same point against the world reference, on this process's source: the
// reference's clock is itself up to its bound away from the world
// reference, so the point is widened by it, and every point of the history
// (whatever the reference's clock was when it was measured) bounds the
// offset to the world reference.
FitPoint to_world(FitPoint point, const clock::LinearModel& source_of_mine,
                  const OffsetMeasurement& measured) {
  const double reference_time = point.t - point.offset;
  point.t = source_of_mine.apply(point.t);
  point.offset = point.t - reference_time;
  point.bound += measured.reference_bound;
  if (point.likely > 0) point.likely = compose_likely(point.likely, measured.reference_likely);
  return point;
}

// LEARN_CLOCK_MODEL, client side: measure against the reference's current
// global clock (which already sits on the root's time when it has been a
// client in an earlier round), keep the points, choose the pair's model on
// the two time sources and put the reference's clock on top.
clock::ModelStack learn_as_client(Transport& group, int reference, const clock::GlobalClock& clk,
                                  const Settings& settings, PairHistory& history) {
  if (settings.offset == OffsetAlgorithm::mean_rtt && history.mean_rtt < 0)
    history.mean_rtt = measure_mean_rtt_as_client(group, reference, clk, settings.pingpongs);
  std::vector<FitPoint> points;
  std::vector<OffsetMeasurement> measurements;
  const auto count = static_cast<std::size_t>(settings.fitpoints < 1 ? 1 : settings.fitpoints);
  points.reserve(count);
  measurements.reserve(count);
  // On a loaded machine a process is sometimes descheduled for milliseconds
  // and every exchange of a fit point crosses that gap; such a point is
  // measured again, up to as many extra times as there are fit points.
  std::size_t spare = count;
  while (points.size() < count) {
    const OffsetMeasurement measured =
        measure_offset_with_bound(group, reference, clk, settings, history.mean_rtt);
    if (history.stalled(measured.point) && spare > 0) {
      --spare;
      continue;
    }
    history.note_uncertainty(measured.point.uncertainty);
    points.push_back(measured.point);
    measurements.push_back(measured);
  }
  release_reference(group, reference);
  // The scatter of this sync's points about their own line, before the
  // reference's bounds widen them all alike. Not set, a likely half-width
  // is the proven one in every later step.
  if (settings.likely_from_scatter) assign_likely_widths(points, settings.path_asymmetry);
  // The reference's clock does not change while it serves a sync.
  const OffsetMeasurement& served = measurements.back();
  const clock::LinearModel mine = clk.models().composite();
  const clock::LinearModel source_of_mine = clock::inverse(mine);
  const clock::LinearModel source_of_reference = clock::inverse(served.reference_model);
  std::vector<FitPoint> on_the_sources(points.size()), against_world(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    on_the_sources[i] = on_sources(points[i], source_of_mine, source_of_reference);
    against_world[i] = to_world(points[i], source_of_mine, measurements[i]);
  }
  history.add(std::move(on_the_sources), std::move(against_world), settings.history_syncs,
              settings.history_seconds);
  // What the two clocks already say of the drift between the sources, kept
  // where the history cannot tell it: a slope of 0 between the two clocks.
  const double known_slope = clock::then(mine, source_of_reference).slope;
  const clock::LinearModel pair = choose_model(history, settings.model, known_slope);
  const clock::LinearModel model =
      clock::then(clock::then(source_of_mine, pair), served.reference_model);
  return clk.models().with(model, bound_for(bound_of_clock(history, pair, served), model, clk));
}

}  // namespace

int hca3_rounds(int processes) {
  if (processes <= 1) return 0;
  const int log = floor_log2(processes);
  return (1 << log) == processes ? log : log + 1;
}

clock::GlobalClock run_hca3(Transport& group, const clock::GlobalClock& mine,
                            const Settings& settings, PairHistory& history) {
  const int p = group.size();
  const int r = group.rank();
  if (p <= 1) return mine;
  const int nrounds = floor_log2(p);
  const int max_power = 1 << nrounds;
  clock::GlobalClock current = mine;
  // Step 1: binomial tree over ranks [0, max_power).
  for (int i = nrounds; i >= 1 && r < max_power; --i) {
    const int running_power = 1 << i;
    const int next_power = 1 << (i - 1);
    if (r % running_power == 0) {
      serve_as_reference(group, r + next_power, current);
    } else if (r % running_power == next_power) {
      current = mine.with_models(learn_as_client(group, r - next_power, mine, settings, history));
    }
  }
  // Step 2: the ranks beyond the largest power of two.
  if (r >= max_power) {
    current = mine.with_models(learn_as_client(group, r - max_power, mine, settings, history));
  } else if (r < p - max_power) {
    serve_as_reference(group, r + max_power, current);
  }
  return current;
}

}  // namespace harmonize::sync
