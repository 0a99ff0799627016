#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "sync/fit.hpp"
#include "sync/pair_history.hpp"

using namespace harmonize::sync;

TEST_CASE("least squares recovers an exact line exactly", "[sync][fit]") {
  // offset = 0.25 t + 3 at dyadic points: every step is exact in binary.
  const std::vector<FitPoint> points{{0, 3}, {2, 3.5}, {4, 4}, {8, 5}};
  const LinearFit fit = fit_linear(points);
  CHECK(fit.model.slope == 0.25);
  CHECK(fit.model.intercept == 3.0);
  CHECK(fit.slope_stderr == 0.0);
}

TEST_CASE("least squares of noisy points matches the textbook numbers", "[sync][fit]") {
  // x = 0,1,2,3; y = 1,3,2,4: slope 0.8, intercept 1.3, residuals
  // -0.3, 0.9, -0.9, 0.3 -> ssr 1.8, s^2 = 0.9, sxx = 5, se = sqrt(0.18).
  const std::vector<FitPoint> points{{0, 1}, {1, 3}, {2, 2}, {3, 4}};
  const LinearFit fit = fit_linear(points);
  CHECK(fit.model.slope == Approx(0.8).epsilon(1e-15));
  CHECK(fit.model.intercept == Approx(1.3).epsilon(1e-15));
  CHECK(fit.slope_stderr == Approx(std::sqrt(0.18)).epsilon(1e-14));
}

TEST_CASE("centring keeps microseconds at large timestamps", "[sync][fit]") {
  // A 50 ppm drift seen at an uptime of ten days.
  const double t0 = 864000.0;
  std::vector<FitPoint> points;
  for (int i = 0; i < 10; ++i) {
    const double t = t0 + 1e-4 * i;
    points.push_back({t, 1e-3 + 50e-6 * (t - t0)});
  }
  const LinearFit fit = fit_linear(points);
  CHECK(fit.model.slope == Approx(50e-6).epsilon(1e-6));
  CHECK(fit.model.offset_at(t0) == Approx(1e-3).epsilon(1e-9));
}

TEST_CASE("degenerate fits fall back to offset-only", "[sync][fit]") {
  CHECK(fit_linear({}).model == harmonize::clock::LinearModel{});
  const std::vector<FitPoint> one{{5, 2}};
  CHECK(fit_linear(one).model == harmonize::clock::LinearModel{0, 2});
  CHECK(std::isinf(fit_linear(one).slope_stderr));
  const std::vector<FitPoint> same_t{{5, 2}, {5, 4}};
  CHECK(fit_linear(same_t).model == harmonize::clock::LinearModel{0, 3});
  CHECK(recompute_intercept(0.0, same_t) == harmonize::clock::LinearModel{0, 3});
}

TEST_CASE("uncertain points weigh less", "[sync][fit]") {
  // Weights 1/u^2: 4 and 1 -> weighted mean (4*1 + 1*6) / 5 = 2.
  const std::vector<FitPoint> points{{0, 1, 0.5}, {0, 6, 1.0}};
  CHECK(recompute_intercept(0.0, points).intercept == 2.0);  // the offset-only model
  CHECK(weight_of({0, 0, 0}) == 1.0);
  CHECK(weight_of({0, 0, 0.5}) == 4.0);
}

TEST_CASE("recomputing the intercept keeps the slope and goes through the anchor", "[sync][fit]") {
  const std::vector<FitPoint> anchor{{10, 7}, {12, 8}};
  const auto model = recompute_intercept(0.5, anchor);
  CHECK(model.slope == 0.5);
  CHECK(model.intercept == 2.0);  // mean of 7 - 5 and 8 - 6
}

TEST_CASE("the history keeps a long baseline for the slope", "[sync][history]") {
  PairHistory history;
  // Two syncs 1 s apart; within each the offsets are noisy (+-1), across
  // them the drift of 4 per second is obvious.
  history.add({{0.0, 1}, {0.001, -1}, {0.002, 1}}, 8, 30);
  history.add({{1.0, 5}, {1.001, 3}, {1.002, 5}}, 8, 30);
  const auto model = choose_model(history, ModelKind::linear);
  CHECK(model.slope == Approx(4.0).epsilon(1e-3));
  // The intercept is anchored on the newest batch.
  CHECK(model.offset_at(1.001) == Approx(13.0 / 3.0).epsilon(1e-3));
  const auto offset_only = choose_model(history, ModelKind::offset_only);
  CHECK(offset_only.slope == 0.0);
  CHECK(offset_only.intercept == Approx(13.0 / 3.0).epsilon(1e-9));
  CHECK(choose_model(history, ModelKind::automatic).slope == model.slope);
}

TEST_CASE("offset-only and a single sync give the offset at the end of the sync",
          "[sync][history]") {
  PairHistory history;
  history.add({{0, 0}, {0.001, 1}, {0.002, 2}}, 8, 30);  // drifting within the sync
  for (auto kind : {ModelKind::offset_only, ModelKind::automatic}) {
    const auto model = choose_model(history, kind);
    CHECK(model.slope == 0.0);
    CHECK(model.intercept == Approx(2.0).epsilon(1e-12));  // not the mean, 1
  }
  CHECK(choose_model(history, ModelKind::linear).slope == Approx(1000.0).epsilon(1e-12));
}

TEST_CASE("automatic drops a slope that is only noise", "[sync][history]") {
  PairHistory history;
  history.add({{0, 1}, {1, -1}}, 8, 30);
  history.add({{2, 1}, {3, -1}}, 8, 30);
  CHECK(choose_model(history, ModelKind::linear).slope != 0.0);
  const auto model = choose_model(history, ModelKind::automatic);
  CHECK(model.slope == 0.0);
  CHECK(model.intercept == 0.0);
}

TEST_CASE("the history forgets old batches and stalled points", "[sync][history]") {
  PairHistory history;
  for (int i = 0; i < 5; ++i) history.add({{double(i), 0, 1e-6}}, 3, 30);
  CHECK(history.batches() == 3);
  CHECK(history.all_points().front().t == 2.0);
  history.add({{100.0, 0, 1e-6}}, 3, 30);  // the others are > 30 s older
  CHECK(history.batches() == 1);
  history.add({{101.0, 0, 1e-6}, {101.1, 5, 1e-4}, {101.2, 0, 2e-6}}, 3, 30);
  CHECK(history.newest().size() == 2);  // the 100x less certain one went
  history.clear();
  CHECK(history.empty());
}

TEST_CASE("a refused sync's batch leaves and the batches it pushed out come back",
          "[sync][history]") {
  PairHistory history;
  for (int i = 0; i < 3; ++i) history.add({{double(i), 0, 1e-6}}, 3, 30);
  const auto adds = history.adds();
  history.add({{3.0, 7, 1e-6}}, 3, 30);  // pushes batch 0 out
  CHECK(history.adds() == adds + 1);
  CHECK(history.all_points().front().t == 1.0);
  history.undo_add();
  REQUIRE(history.batches() == 3);
  CHECK(history.all_points().front().t == 0.0);
  CHECK(history.newest().front().t == 2.0);
  history.undo_add();  // once per add: batch 2 stays
  CHECK(history.batches() == 3);
  CHECK(history.newest().front().t == 2.0);

  history.add({{100.0, 7, 1e-6}}, 3, 30);  // all the others are > 30 s older
  REQUIRE(history.batches() == 1);
  history.undo_add();
  CHECK(history.batches() == 3);
  CHECK(history.all_points().front().t == 0.0);

  const auto before = history.adds();
  history.add({}, 3, 30);  // nothing kept: nothing added, nothing to undo
  CHECK(history.adds() == before);
  history.clear();
  history.undo_add();
  CHECK(history.empty());
}

TEST_CASE("without a drift of its own the model keeps the one the clocks know", "[sync][history]") {
  PairHistory history;
  history.add({{0, 0}, {0.001, 1}, {0.002, 2}}, 8, 30);
  // One sync: no slope from the history; the clocks' own models say 0.5.
  for (auto kind : {ModelKind::offset_only, ModelKind::automatic}) {
    const auto model = choose_model(history, kind, 0.5);
    CHECK(model.slope == 0.5);
    CHECK(model.offset_at(0.002) == Approx(2.0).epsilon(1e-12));  // the batch's end
  }
  // Two syncs spanning 4 ms are still too close to trust a slope of their own.
  history.add({{0.003, 3}, {0.0035, 3.5}, {0.004, 4}}, 8, 30);
  CHECK(choose_model(history, ModelKind::automatic, 0.5).slope == 0.5);
  // 10 ms apart (the resync ramp's first interval) they are not.
  history.add({{0.012, 12}, {0.013, 13}, {0.014, 14}}, 8, 30);
  CHECK(choose_model(history, ModelKind::automatic, 0.5).slope == Approx(1000.0).epsilon(1e-9));
}

TEST_CASE("a point goes from both lists of the history at once", "[sync][history]") {
  PairHistory history;
  // On the sources and against the world: same times, other offsets and
  // bounds. The second point is a stall (100x less certain on the sources).
  history.add({{1.0, 10, 1e-6, 2e-6}, {1.1, 50, 1e-4, 2e-4}, {1.2, 10, 1e-6, 3e-6}},
              {{1.0, 20, 1e-6, 5e-6}, {1.1, 60, 1e-4, 6e-6}, {1.2, 20, 1e-6, 4e-6}}, 8, 30);
  REQUIRE(history.newest().size() == 2);
  const auto world = history.bound_points();
  const auto sources = history.bound_points_on_sources();
  REQUIRE(world.size() == 3);  // the tightest of the batch, then all of the newest
  REQUIRE(sources.size() == 3);
  CHECK(world[0].bound == 4e-6);
  CHECK(sources[0].bound == 2e-6);
  CHECK(world[1].offset == 20);
  CHECK(world[2].t == 1.2);
  CHECK(sources[2].offset == 10);
  // Lists of different lengths are not one set of measurements: refused
  // aloud, the history unchanged.
  CHECK_THROWS_AS(history.add({{2.0, 0, 1e-6}}, {}, 8, 30), std::invalid_argument);
  CHECK(history.batches() == 1);
}
