#pragma once
// One level of a clock model (pure).
namespace harmonize::clock {

// Maps a time t of the clock below to the reference time by subtracting the
// estimated offset (local - reference) at t: offset(t) = slope * t + intercept.
// slope = 0 is an offset-only model.
struct LinearModel {
  double slope = 0;
  double intercept = 0;

  double offset_at(double t) const noexcept { return slope * t + intercept; }
  double apply(double t) const noexcept { return t - offset_at(t); }
  bool operator==(const LinearModel&) const = default;
};

// The one model that applies `below`, then `above`: apply(t) = (1 - s) t - i,
// so the factors (1 - s) multiply.
constexpr LinearModel then(const LinearModel& below, const LinearModel& above) noexcept {
  return {below.slope + above.slope - below.slope * above.slope,
          (1.0 - above.slope) * below.intercept + above.intercept};
}

// The model that undoes `model`: t = (g + i) / (1 - s).
constexpr LinearModel inverse(const LinearModel& model) noexcept {
  const double scale = 1.0 / (1.0 - model.slope);
  return {1.0 - scale, -model.intercept * scale};
}

}  // namespace harmonize::clock
