#include "sync/hca3.hpp"

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

// The bound of the clock `model` makes on top of `clk`. The pair's history
// bounds it directly against the world reference. When `clk` itself came out
// of a sync (a sub-communicator's base is the world clock), its own bound
// plus what the model moves it by is another honest bound, and usually the
// one that grows slower: the world clock knows its drift from a long history
// while a new pair knows nothing of it yet. The tighter one a horizon ahead
// wins, for the proven and the likely bound each.
clock::ErrorBound bound_for(const PairHistory& history, const clock::LinearModel& model,
                            const clock::GlobalClock& clk) {
  clock::ErrorBound pair = error_bound_of(history, model);
  if (clk.models().depth() == 0) return pair;  // a raw source: its (zero) bound means nothing
  const double below = pair.at + model.offset_at(pair.at);  // the anchor on clk
  const double moved_by = std::abs(model.offset_at(below));
  const clock::ErrorBound& base = clk.error_bound();
  const clock::ErrorBound moved{pair.at, base.at_time(below) + moved_by,
                                base.rate + std::abs(model.slope), base.likely_at(below) + moved_by,
                                std::min(base.rate, base.likely_rate) + std::abs(model.slope)};
  const double horizon = pair.at + kBoundHorizon;
  if (moved.at_time(horizon) < pair.at_time(horizon)) {
    pair.value = moved.value;
    pair.rate = moved.rate;
  }
  if (moved.likely_at(horizon) < pair.likely_at(horizon)) {
    pair.likely_value = moved.likely_value;
    pair.likely_rate = moved.likely_rate;
  }
  return pair;
}

// LEARN_CLOCK_MODEL, client side: measure against the reference's current
// global clock (which already sits on the root's time when it has been a
// client in an earlier round), keep the points, choose the model and bound
// the clock it makes.
clock::ModelStack learn_as_client(Transport& group, int reference, const clock::GlobalClock& clk,
                                  const Settings& settings, PairHistory& history) {
  if (settings.offset == OffsetAlgorithm::mean_rtt && history.mean_rtt < 0)
    history.mean_rtt = measure_mean_rtt_as_client(group, reference, clk, settings.pingpongs);
  std::vector<FitPoint> points;
  std::vector<OffsetMeasurement> references;  // what the reference said of its clock, per point
  const auto count = static_cast<std::size_t>(settings.fitpoints < 1 ? 1 : settings.fitpoints);
  points.reserve(count);
  references.reserve(count);
  // On a loaded machine a process is sometimes descheduled for milliseconds
  // and every exchange of a fit point crosses that gap; such a point is
  // measured again, up to as many extra times as there are fit points.
  std::size_t spare = count;
  while (points.size() < count) {
    const OffsetMeasurement measured =
        measure_offset_with_bound(group, reference, clk, settings, history.mean_rtt);
    FitPoint point = measured.point;
    if (history.stalled(point) && spare > 0) {
      --spare;
      continue;
    }
    history.note_uncertainty(point.uncertainty);
    points.push_back(point);
    references.push_back(measured);
  }
  release_reference(group, reference);
  // The scatter of this sync's points about their own line, before the
  // reference's bounds widen them all alike. Not set, a likely half-width
  // is the proven one in every later step.
  if (settings.likely_from_scatter) assign_likely_widths(points);
  // The reference's clock is itself up to its bound away from the world
  // reference: widened so, every point of the history (whatever the
  // reference's clock was when it was measured) bounds the offset to the
  // world reference, and the pair's bound needs no further composition.
  for (std::size_t i = 0; i < points.size(); ++i) {
    points[i].bound += references[i].reference_bound;
    if (points[i].likely > 0)
      points[i].likely = compose_likely(points[i].likely, references[i].reference_likely);
  }
  history.add(std::move(points), settings.history_syncs, settings.history_seconds);
  const clock::LinearModel model = choose_model(history, settings.model);
  return clk.models().with(model, bound_for(history, model, clk));
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
