#pragma once
// The synchronized clock: a time source seen through a stack of models.
#include "clock/model_stack.hpp"
#include "clock/time_source.hpp"

#include <utility>

namespace harmonize::clock {

// Cheap to copy (a pointer and a few doubles). The source must outlive every
// copy; the owner of the library state guarantees that.
class GlobalClock {
 public:
  GlobalClock(const TimeSource& source, ModelStack models)
      : source_(&source), models_(std::move(models)) {}

  double now() const noexcept { return models_.apply(source_->now()); }
  double to_global(double local) const noexcept { return models_.apply(local); }
  const ModelStack& models() const { return models_; }
  // How far this clock can be from world rank 0's at `global_time` (a time
  // of this clock): the honest limit of anything measured on it.
  double error_bound_at(double global_time) const noexcept {
    return models_.error_bound().at_time(global_time);
  }
  const ErrorBound& error_bound() const noexcept { return models_.error_bound(); }
  double likely_error_at(double global_time) const noexcept {
    return models_.error_bound().likely_at(global_time);
  }
  const TimeSource& source() const { return *source_; }
  GlobalClock with_models(ModelStack models) const {
    return GlobalClock(*source_, std::move(models));
  }

 private:
  const TimeSource* source_;
  ModelStack models_;
};

}  // namespace harmonize::clock
