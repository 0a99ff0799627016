// The pure maths of the error bounds: what a fit point proves, the drift
// interval, the bound of a model, and a pair's history (exact numbers).
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "sync/error_bound_fit.hpp"
#include "sync/likely_error.hpp"
#include "sync/offset_estimate.hpp"
#include "sync/pair_history.hpp"

using namespace harmonize::sync;
using harmonize::clock::ErrorBound;
using harmonize::clock::LinearModel;

TEST_CASE("a SKaMPI point proves its offset within the intersection, widened by drift",
          "[sync][bound]") {
  // Offset intervals [send - ref, recv - ref]: [9, 13], [9, 11], [7, 15].
  const std::vector<Exchange> exchanges{{110, 101, 114}, {120, 111, 122}, {130, 123, 138}};
  CHECK(skampi_offset(exchanges, 0.0).bound == 1.0 + kClockReadAllowance);
  // At 1/64 per second the offset moves by up to 28/64 over the exchanges'
  // span (110 to 138): the intersection widens by that on both sides.
  const FitPoint point = skampi_offset(exchanges, 1.0 / 64);
  CHECK(point.offset == 10.0);
  CHECK(point.uncertainty == 1.0);  // the weighting is unchanged
  CHECK(point.bound == 1.4375 + kClockReadAllowance);
  // The default assumes the physical maximum drift.
  CHECK(skampi_offset(exchanges).bound ==
        skampi_offset(exchanges, harmonize::clock::kMaxRelativeDrift).bound);
}

TEST_CASE("crossed SKaMPI bounds leave only the read allowance", "[sync][bound]") {
  // [5, 9] and [10, 12]: crossed by 1, so the estimate is their middle, 9.5.
  const std::vector<Exchange> exchanges{{0, -5, 4}, {20, 10, 22}};
  const FitPoint point = skampi_offset(exchanges, 0.0);
  CHECK(point.offset == 9.5);
  CHECK(point.bound == kClockReadAllowance);
}

TEST_CASE("a Mean-RTT point is bounded by the farther end of SKaMPI's interval", "[sync][bound]") {
  // Intervals [10, 22], [10, 12], [11, 23]: proven [11, 12]. Mean-RTT
  // offsets (rtt 2): 21, 11, 22; the median 21 lies 10 beyond 11.
  const std::vector<Exchange> exchanges{{0, -10, 12}, {20, 10, 22}, {30, 19, 42}};
  const FitPoint point = mean_rtt_offset(exchanges, 2.0, 0.0);
  CHECK(point.offset == 21.0);
  CHECK(point.t == 12.0);
  CHECK(point.uncertainty == 0.0);  // unknown for weighting
  CHECK(point.bound == 10.0 + kClockReadAllowance);
  // Span 0 to 42 at 1/64 per second: [11 - 42/64, 12 + 42/64].
  CHECK(mean_rtt_offset(exchanges, 2.0, 1.0 / 64).bound == 10.65625 + kClockReadAllowance);
}

TEST_CASE("the drift interval is what lines through all intervals allow", "[sync][bound]") {
  // (t, offset, -, bound): pairs give [0, 1], [0.25, 0.75], [0, 1].
  const std::vector<FitPoint> points{{0, 0, 0, 1}, {4, 2, 0, 1}, {8, 4, 0, 1}};
  CHECK(drift_interval(points, 10.0) == DriftInterval{0.25, 0.75});
  // Clipped to the physical maximum ...
  CHECK(drift_interval(points, 0.5) == DriftInterval{0.25, 0.5});
  // ... and all of it when the points lie beyond it.
  CHECK(drift_interval(points, 0.2) == DriftInterval{-0.2, 0.2});
  // Order does not matter; equal times say nothing.
  const std::vector<FitPoint> shuffled{{8, 4, 0, 1}, {0, 0, 0, 1}, {8, 4, 0, 1}, {4, 2, 0, 1}};
  CHECK(drift_interval(shuffled, 10.0) == DriftInterval{0.25, 0.75});
  // One point or none: the physical range.
  CHECK(drift_interval(std::span(points).first(1), 3.0) == DriftInterval{-3.0, 3.0});
  CHECK(drift_interval({}, 3.0) == DriftInterval{-3.0, 3.0});
}

TEST_CASE("points no line goes through give the physical range", "[sync][bound]") {
  // 0 -> 0 -> 5: a jump no linear drift explains.
  const std::vector<FitPoint> wander{{0, 0, 0, 0.5}, {1, 0, 0, 0.5}, {2, 5, 0, 0.5}};
  CHECK(drift_interval(wander, 100.0) == DriftInterval{-100.0, 100.0});
}

TEST_CASE("a model's bound: the farther end of the offset the points prove at the anchor",
          "[sync][bound]") {
  const std::vector<FitPoint> points{{0, 0, 0, 1}, {4, 2, 0, 1}, {8, 4, 0, 1}};
  // Carried to t = 8 with drifts in [0.25, 0.75]: [1, 7], [2, 6], [3, 5].
  const LinearModel model{0.5, 0.0};  // predicts 4 at 8
  const ErrorBound bound = model_error_bound(points, DriftInterval{0.25, 0.75}, model, 10.0);
  CHECK(bound == ErrorBound{4.0, 1.0, 0.25});  // anchored at 8 - 4 on the new clock
  // A model off the proven interval is bounded by its distance to the far end.
  const ErrorBound off = model_error_bound(points, DriftInterval{0.25, 0.75}, {0.5, 2.0}, 10.0);
  CHECK(off == ErrorBound{2.0, 3.0, 0.25});  // predicts 6: 6 - 3
  // Offset-only: the rate is the distance to the farther drift.
  CHECK(model_error_bound(points, DriftInterval{0.25, 0.75}, {0.0, 4.0}, 10.0).rate == 0.75);
  CHECK(std::isinf(model_error_bound({}, DriftInterval{}, model, 10.0).value));
}

TEST_CASE("a model's bound falls back when the points contradict the drift interval",
          "[sync][bound]") {
  SECTION("the representatives' interval was too narrow: the physical range") {
    // With drift -0.1 the two intervals at t = 2 are [-0.7, 0.3] and
    // [0.5, 1.5]: empty. With [-1, 1]: [-2.5, 2.5] and [0.5, 1.5].
    const std::vector<FitPoint> points{{0, 0, 0, 0.5}, {2, 1, 0, 0.5}};
    const ErrorBound bound = model_error_bound(points, DriftInterval{-0.1, -0.1}, {0.5, 0.0}, 1.0);
    CHECK(bound == ErrorBound{1.0, 0.5, 1.5});
  }
  SECTION("no line at all: the best single point carried at the physical maximum") {
    const std::vector<FitPoint> points{{0, 0, 0, 0.5}, {1, 0, 0, 0.5}, {2, 5, 0, 0.5}};
    // min(0.5 + 2, 0.5 + 1, 5 + 0.5) at rate 1.
    const ErrorBound bound = model_error_bound(points, DriftInterval{-1, 1}, {0.0, 0.0}, 1.0);
    CHECK(bound == ErrorBound{2.0, 1.5, 1.0});
  }
}

TEST_CASE("a pair's history bounds its model with a few points per sync", "[sync][bound]") {
  PairHistory history;
  // Two syncs 1 s apart, drift 4 per second, every point within +-1.
  history.add({{0.0, 1, 1, 1}, {0.001, -1, 1, 1.5}, {0.002, 1, 1, 0.5}}, 8, 30);
  history.add({{1.0, 5, 1, 1}, {1.001, 3, 1, 2}, {1.002, 5, 1, 0.25}}, 8, 30);
  // The bound rests on the tightest point of each sync and the newest sync.
  const auto points = history.bound_points();
  REQUIRE(points.size() == 2 + 3);
  CHECK(points[0].t == 0.002);
  CHECK(points[1].t == 1.002);
  CHECK(points[2].t == 1.0);
  CHECK(points[4].t == 1.002);
  const LinearModel model = choose_model(history, ModelKind::linear);
  const ErrorBound bound = error_bound_of(history, model, 100.0);
  const DriftInterval drift = drift_interval(std::span(points).first(2), 100.0);
  const ErrorBound proven = model_error_bound(points, drift, model, 100.0);
  CHECK(bound.at == proven.at);
  CHECK(bound.value == proven.value);
  CHECK(bound.rate == proven.rate);
  // No point has a likely half-width: the likely bound is the proven one.
  CHECK(bound.likely_value == proven.value);
  CHECK(bound.likely_rate == proven.rate);
  // Rigorous with all points too, and at most as tight.
  const ErrorBound all = model_error_bound(history.all_points(), drift, model, 100.0);
  CHECK(all.value <= bound.value);
  CHECK(all.rate == bound.rate);
  CHECK(drift.low < 4.0);
  CHECK(drift.high > 4.0);
  CHECK(bound.rate < 1.5);  // a second of baseline pins the drift
}

TEST_CASE("the likely bound is the same maths on the likely half-widths", "[sync][bound]") {
  PairHistory history;
  // Offsets within +-0.25 of a line of drift 4, proven only within +-1.
  history.add({{0.0, 1, 1, 1, 0.25}, {0.001, 1.1, 1, 1.5, 0.25}, {0.002, 1, 1, 1, 0.25}}, 8, 30);
  history.add({{1.0, 5, 1, 1, 0.25}, {1.001, 4.9, 1, 2, 0.25}, {1.002, 5, 1, 1, 0.5}}, 8, 30);
  const LinearModel model = choose_model(history, ModelKind::linear);
  const ErrorBound bound = error_bound_of(history, model, 100.0);
  auto points = history.bound_points();
  for (FitPoint& p : points) p.bound = std::min(p.bound, p.likely);
  const DriftInterval drift = drift_interval(std::span(points).first(2), 100.0);
  const ErrorBound likely = model_error_bound(points, drift, model, 100.0);
  CHECK(bound.likely_value == likely.value);
  // Two syncs leave no degree of freedom to check their widths with: the
  // drift is the intervals' (sync/likely_error.hpp).
  CHECK(std::isinf(likely_drift_error(std::span(points).first(2), model.slope)));
  CHECK(bound.likely_rate == likely.rate);
  CHECK(bound.likely_value < 0.5 * bound.value);
  CHECK(bound.likely_rate < 0.5 * bound.rate);
}
