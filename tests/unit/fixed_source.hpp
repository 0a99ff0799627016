#pragma once
// A time source stopped at one instant, for the clock unit tests.
#include "clock/time_source.hpp"

namespace harmonize::clock::testing {

class FixedSource final : public TimeSource {
 public:
  explicit FixedSource(double t) : t_(t) {}
  double now() const noexcept override { return t_; }
  const char* name() const noexcept override { return "fixed"; }

 private:
  double t_;
};

}  // namespace harmonize::clock::testing
