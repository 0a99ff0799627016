// The 99 % half-widths of fit points (sync/likely_error.hpp), exactly.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "common/choices.hpp"
#include "sync/likely_error.hpp"
#include "sync/offset_estimate.hpp"

using namespace harmonize::sync;

namespace {
constexpr double kShare = harmonize::choices::kDefaultPathAsymmetry;
}  // namespace

TEST_CASE("the scatter of a sync's offsets is taken about their own line", "[sync][bound]") {
  // Fewer points than a line needs to show any scatter.
  const std::vector<FitPoint> two{{0.0, 1.0}, {1.0, 5.0}};
  CHECK(std::isinf(offset_scatter(two)));
  // On a line (drift within the sync is not scatter).
  const std::vector<FitPoint> drifting{{0.0, 1.0}, {1.0, 3.0}, {2.0, 5.0}, {3.0, 7.0}};
  CHECK(offset_scatter(drifting) == 0.0);
  // Line offset = 1, slope 0; residuals -1, 2, -1 over one degree of freedom.
  const std::vector<FitPoint> bent{{0.0, 0.0}, {1.0, 3.0}, {2.0, 0.0}};
  CHECK(offset_scatter(bent) == Approx(std::sqrt(6.0)).epsilon(1e-15));
}

TEST_CASE("a likely half-width is the scatter's, a share of the proven one, never above it",
          "[sync][bound]") {
  SECTION("no scatter: the unseen-asymmetry share and the read allowance") {
    std::vector<FitPoint> batch{
        {0.0, 1e-6, 0, 200e-9}, {1e-3, 1e-6, 0, 100e-9}, {2e-3, 1e-6, 0, 400e-9}};
    assign_likely_widths(batch, kShare);
    CHECK(batch[0].likely == Approx(kShare * 200e-9 + kClockReadAllowance));
    CHECK(batch[1].likely == Approx(kShare * 100e-9 + kClockReadAllowance));
    CHECK(batch[2].likely == Approx(kShare * 400e-9 + kClockReadAllowance));
  }
  SECTION("scatter: kLikelyCoverage times it on top") {
    std::vector<FitPoint> batch{{0.0, 0.0, 0, 1e-6}, {1.0, 3e-9, 0, 1e-6}, {2.0, 0.0, 0, 1e-6}};
    assign_likely_widths(batch, kShare);
    const double expected =
        kLikelyCoverage * std::sqrt(6.0) * 1e-9 + kShare * 1e-6 + kClockReadAllowance;
    for (const FitPoint& p : batch) CHECK(p.likely == Approx(expected));
  }
  SECTION("paths stated symmetric (share 0): the scatter and the read allowance alone") {
    std::vector<FitPoint> batch{{0.0, 0.0, 0, 1e-6}, {1.0, 3e-9, 0, 1e-6}, {2.0, 0.0, 0, 1e-6}};
    assign_likely_widths(batch, 0.0);
    for (const FitPoint& p : batch)
      CHECK(p.likely == Approx(kLikelyCoverage * std::sqrt(6.0) * 1e-9 + kClockReadAllowance));
    std::vector<FitPoint> quiet{{0.0, 1e-6, 0, 5e-6}, {1e-3, 1e-6, 0, 5e-6}, {2e-3, 1e-6, 0, 5e-6}};
    assign_likely_widths(quiet, 0.0);
    for (const FitPoint& p : quiet) CHECK(p.likely == Approx(kClockReadAllowance));
  }
  SECTION("a scatter as wide as the proven interval: the proven half-width") {
    std::vector<FitPoint> batch{{0.0, 0.0, 0, 1e-6}, {1.0, 3e-6, 0, 2e-6}, {2.0, 0.0, 0, 1e-6}};
    assign_likely_widths(batch, kShare);
    CHECK(batch[0].likely == 1e-6);
    CHECK(batch[1].likely == 2e-6);
  }
  SECTION("too few points to see a scatter: the proven half-width") {
    std::vector<FitPoint> batch{{0.0, 0.0, 0, 1e-6}, {1.0, 0.0, 0, 2e-6}};
    assign_likely_widths(batch, kShare);
    CHECK(batch[0].likely == 1e-6);
    CHECK(batch[1].likely == 2e-6);
  }
}

TEST_CASE("the likely drift error is the slope's, as a weighted least-squares statistic",
          "[sync][bound]") {
  // Three syncs 1 s apart, each offset known to sigma = likely / coverage = 1,
  // on a line of slope 2: its variance is 1 / sum w (t - mean)^2 = 1 / 2.
  const double likely = kLikelyCoverage;
  const std::vector<FitPoint> line{
      {0.0, 0.0, 0, 10, likely}, {1.0, 2.0, 0, 10, likely}, {2.0, 4.0, 0, 10, likely}};
  CHECK(likely_drift_error(line, 2.0) == Approx(kLikelyCoverage / std::sqrt(2.0)));
  // A model without that slope errs by the difference too.
  CHECK(likely_drift_error(line, 0.0) == Approx(2.0 + kLikelyCoverage / std::sqrt(2.0)));
  // Residuals -1/3, 2/3, -1/3: chi-square 2/3 on one degree of freedom, within
  // the widths: no change.
  const std::vector<FitPoint> within{
      {0.0, 0.0, 0, 10, likely}, {1.0, 3.0, 0, 10, likely}, {2.0, 4.0, 0, 10, likely}};
  CHECK(likely_drift_error(within, 2.0) == Approx(kLikelyCoverage / std::sqrt(2.0)));
  // Residuals -4/3, 8/3, -4/3: chi-square 32/3, so the deviation grows by sqrt(32/3).
  const std::vector<FitPoint> beyond{
      {0.0, 0.0, 0, 10, likely}, {1.0, 6.0, 0, 10, likely}, {2.0, 4.0, 0, 10, likely}};
  CHECK(likely_drift_error(beyond, 2.0) ==
        Approx(kLikelyCoverage * std::sqrt(32.0 / 3.0) / std::sqrt(2.0)));
  // Nothing to say: two syncs (no check of their widths), all at one
  // instant, a point without a likely width.
  CHECK(std::isinf(likely_drift_error(std::span(line).first(2), 2.0)));
  const std::vector<FitPoint> same_time{
      {1.0, 0.0, 0, 10, likely}, {1.0, 2.0, 0, 10, likely}, {1.0, 1.0, 0, 10, likely}};
  CHECK(std::isinf(likely_drift_error(same_time, 0.0)));
  const std::vector<FitPoint> unknown{
      {0.0, 0.0, 0, 10, likely}, {1.0, 2.0, 0, 10, 0.0}, {2.0, 4.0, 0, 10, likely}};
  CHECK(std::isinf(likely_drift_error(unknown, 2.0)));
}

TEST_CASE("likely errors of independent pairs add as variances", "[sync][bound]") {
  CHECK(compose_likely(3.0, 4.0) == 5.0);
  CHECK(compose_likely(2.0, 0.0) == 2.0);
  CHECK(std::isinf(compose_likely(1.0, INFINITY)));
}
