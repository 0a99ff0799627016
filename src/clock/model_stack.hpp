#pragma once
// Nested clock models (pure): level 0 corrects the time source, level 1
// corrects the result of level 0, and so on. Sub-communicator clocks sit on
// top of the world clock this way, and ClockPropSync ships a whole stack.
// The stack carries the error bound of the clock it makes against the world
// reference, set by the sync that produced it (zero for the reference itself
// and for a stack no sync has touched).
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "clock/error_bound.hpp"
#include "clock/linear_model.hpp"

namespace harmonize::clock {

class ModelStack {
 public:
  ModelStack() = default;
  explicit ModelStack(std::vector<LinearModel> levels) : levels_(std::move(levels)) {}

  double apply(double local) const noexcept {
    for (const LinearModel& level : levels_) local = level.apply(local);
    return local;
  }
  void push(const LinearModel& level) { levels_.push_back(level); }
  // Keeps the bound: the caller of a sync sets the new one.
  ModelStack with(const LinearModel& level) const {
    ModelStack copy = *this;
    copy.push(level);
    return copy;
  }
  ModelStack with(const LinearModel& level, const ErrorBound& bound) const {
    ModelStack copy = with(level);
    copy.bound_ = bound;
    return copy;
  }
  ModelStack with_bound(const ErrorBound& bound) const {
    ModelStack copy = *this;
    copy.bound_ = bound;
    return copy;
  }
  const ErrorBound& error_bound() const noexcept { return bound_; }
  std::span<const LinearModel> levels() const noexcept { return levels_; }
  std::size_t depth() const noexcept { return levels_.size(); }
  // The whole stack as one model of the time source (a sync measures a pair
  // on its two sources, whose relation stays linear across the syncs that
  // change every level above them).
  LinearModel composite() const noexcept {
    LinearModel all;
    for (const LinearModel& level : levels_) all = then(all, level);
    return all;
  }
  bool operator==(const ModelStack&) const = default;

  // Byte layout (version 3): magic "HCLK", u32 version, u32 depth, the bound
  // as five IEEE doubles (at, value, rate, likely_value, likely_rate), then per level two doubles
  // (slope, intercept), all in native byte order - the stack only travels
  // between processes of one job on one machine type. Other versions are
  // refused: a peer of another build must not be read as if it were this one.
  std::vector<std::byte> serialize() const;
  static std::optional<ModelStack> deserialize(std::span<const std::byte> bytes);

 private:
  std::vector<LinearModel> levels_;
  ErrorBound bound_;
};

}  // namespace harmonize::clock
