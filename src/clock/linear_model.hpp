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

}  // namespace harmonize::clock
