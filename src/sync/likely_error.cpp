#include "sync/likely_error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sync/offset_estimate.hpp"

namespace harmonize::sync {

double offset_scatter(std::span<const FitPoint> batch) {
  if (batch.size() < kMinScatterPoints) return std::numeric_limits<double>::infinity();
  const clock::LinearModel line = fit_linear(batch).model;
  double squares = 0;
  for (const FitPoint& p : batch) {
    const double residual = p.offset - line.offset_at(p.t);
    squares += residual * residual;
  }
  return std::sqrt(squares / static_cast<double>(batch.size() - 2));
}

void assign_likely_widths(std::span<FitPoint> batch, double path_asymmetry) {
  const double scatter = offset_scatter(batch);
  for (FitPoint& p : batch)
    p.likely = std::min(p.bound,
                        kLikelyCoverage * scatter + path_asymmetry * p.bound + kClockReadAllowance);
}

double likely_drift_error(std::span<const FitPoint> representatives, double model_slope) {
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  if (representatives.size() < kMinDriftSyncs) return kUnknown;
  // 1 / variance, the standard deviation being likely / kLikelyCoverage.
  const auto weight = [](const FitPoint& p) {
    return kLikelyCoverage * kLikelyCoverage / (p.likely * p.likely);
  };
  double weights = 0, t_sum = 0, offset_sum = 0;
  for (const FitPoint& p : representatives) {
    if (!(p.likely > 0)) return kUnknown;
    const double w = weight(p);
    weights += w;
    t_sum += w * p.t;
    offset_sum += w * p.offset;
  }
  const double t_mean = t_sum / weights;
  const double offset_mean = offset_sum / weights;
  double sxx = 0, sxy = 0;
  for (const FitPoint& p : representatives) {
    const double w = weight(p);
    sxx += w * (p.t - t_mean) * (p.t - t_mean);
    sxy += w * (p.t - t_mean) * (p.offset - offset_mean);
  }
  if (!(sxx > 0)) return kUnknown;
  const double slope = sxy / sxx;
  // Whether the syncs keep to their own widths: chi-square per degree of
  // freedom (the Birge ratio squared). A loaded core can bias a whole sync
  // by more than its scatter shows; then the syncs disagree with each other
  // and the widths, and so the slope's deviation, grow by that ratio, never
  // shrink.
  double chi_square = 0;
  for (const FitPoint& p : representatives) {
    const double residual = p.offset - offset_mean - slope * (p.t - t_mean);
    chi_square += weight(p) * residual * residual;
  }
  const double dof = static_cast<double>(representatives.size() - 2);
  const double birge = std::max(1.0, std::sqrt(chi_square / dof));
  return std::abs(model_slope - slope) + kLikelyCoverage * birge / std::sqrt(sxx);
}

double compose_likely(double pair, double reference) {
  return std::hypot(pair, reference);
}

}  // namespace harmonize::sync
