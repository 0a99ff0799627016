#pragma once
// Nested clock models (pure): level 0 corrects the time source, level 1
// corrects the result of level 0, and so on. Sub-communicator clocks sit on
// top of the world clock this way, and ClockPropSync ships a whole stack.
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

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
  ModelStack with(const LinearModel& level) const {
    ModelStack copy = *this;
    copy.push(level);
    return copy;
  }
  std::span<const LinearModel> levels() const noexcept { return levels_; }
  std::size_t depth() const noexcept { return levels_.size(); }
  bool operator==(const ModelStack&) const = default;

  // Byte layout: magic "HCLK", u32 version, u32 depth, then per level two
  // IEEE doubles (slope, intercept), all in native byte order - the stack
  // only travels between processes of one job on one machine type.
  std::vector<std::byte> serialize() const;
  static std::optional<ModelStack> deserialize(std::span<const std::byte> bytes);

 private:
  std::vector<LinearModel> levels_;
};

}  // namespace harmonize::clock
