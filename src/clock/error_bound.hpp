#pragma once
// How far a global clock can be from the world reference (pure). The
// reference is world rank 0's clock: every bound in the library is relative
// to it, so two clocks agree within the sum of their bounds (docs/clock-error.md).
#include <algorithm>
#include <cmath>
#include <limits>

namespace harmonize::clock {

// The largest relative drift between two time sources the bounds assume.
// Crystal oscillators are specified at +-20..50 ppm, so two of them differ by
// at most ~100 ppm. NTP may slew CLOCK_MONOTONIC by up to 500 ppm, but the
// nodes of one cluster agree in frequency far better than that; a pair that
// really drifts faster breaks the bounds of its first sync (one batch, no
// drift measured) and is caught by Check-Global-Clock (sync/clock_check.hpp).
inline constexpr double kMaxRelativeDrift = 100e-6;

// |error(t)| <= value + rate * |t - at|, t in seconds of global time: proven
// under the drift assumption above.
// The likely bound, likely_value + likely_rate * |t - at|, holds at 99 % of
// checks instead (sync/likely_error.hpp): it assumes the paths no more
// asymmetric than their scatter shows. It is never above the proven one, and
// is the proven one where nothing better is known (infinite: not computed).
struct ErrorBound {
  double at = 0;
  double value = 0;
  double rate = 0;
  double likely_value = std::numeric_limits<double>::infinity();
  double likely_rate = 0;

  double at_time(double t) const noexcept { return value + rate * std::abs(t - at); }
  double likely_at(double t) const noexcept {
    return std::min(at_time(t), likely_value + likely_rate * std::abs(t - at));
  }
  bool operator==(const ErrorBound&) const = default;
};

}  // namespace harmonize::clock
