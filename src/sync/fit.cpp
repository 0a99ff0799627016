#include "sync/fit.hpp"

#include <cmath>
#include <limits>
#include <vector>

namespace harmonize::sync {
namespace {

struct WeightedMeans {
  double weight = 0;
  double t = 0;
  double offset = 0;
};

WeightedMeans means_of(std::span<const FitPoint> points, std::span<const double> weights) {
  WeightedMeans m;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double w = weights[i];
    m.weight += w;
    m.t += w * points[i].t;
    m.offset += w * points[i].offset;
  }
  m.t /= m.weight;
  m.offset /= m.weight;
  return m;
}

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

double weight_of(const FitPoint& point) {
  return point.uncertainty > 0 ? 1.0 / (point.uncertainty * point.uncertainty) : 1.0;
}

LinearFit fit_linear(std::span<const FitPoint> points) {
  if (points.empty()) return LinearFit{{}, kInfinity};
  // Each weight once: a division each, and this runs in every sync over up
  // to 64 points (three passes used to cost ~1 us of divisions there).
  std::vector<double> weights(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) weights[i] = weight_of(points[i]);
  const WeightedMeans m = means_of(points, weights);
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const FitPoint& p = points[i];
    const double dx = p.t - m.t;
    sxx += weights[i] * dx * dx;
    sxy += weights[i] * dx * (p.offset - m.offset);
  }
  if (points.size() < 2 || sxx == 0) return LinearFit{{0.0, m.offset}, kInfinity};
  const double slope = sxy / sxx;
  LinearFit fit{clock::LinearModel{slope, m.offset - slope * m.t}, kInfinity};
  if (points.size() > 2) {
    // Residual variance per unit weight, scaled to the weighted spread of t.
    double ssr = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const FitPoint& p = points[i];
      const double r = p.offset - m.offset - slope * (p.t - m.t);
      ssr += weights[i] * r * r;
    }
    fit.slope_stderr = std::sqrt(ssr / static_cast<double>(points.size() - 2) / sxx);
  }
  return fit;
}

clock::LinearModel recompute_intercept(double slope, std::span<const FitPoint> anchor) {
  if (anchor.empty()) return clock::LinearModel{slope, 0.0};
  double sum = 0, weights = 0;
  for (const FitPoint& p : anchor) {
    const double w = weight_of(p);
    sum += w * (p.offset - slope * p.t);
    weights += w;
  }
  return clock::LinearModel{slope, sum / weights};
}

}  // namespace harmonize::sync
