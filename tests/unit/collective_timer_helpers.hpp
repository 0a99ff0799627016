#pragma once
// The collective timer on a clock the test moves by hand (no TSC: stamps are
// the clock's readings), communicators as plain ids.
#include <memory>

#include "clock/tick_stamp.hpp"
#include "clock/time_source.hpp"
#include "harmonize/collectives/collective_timer.hpp"

namespace harmonize::collectives::testing {

// A clock the test moves by hand.
class ManualSource final : public clock::TimeSource {
 public:
  double now() const noexcept override { return t; }
  const char* name() const noexcept override { return "manual"; }
  double t = 0;
};

inline constexpr CommId kNull{0};  // stands for MPI_COMM_NULL
inline constexpr CommId kWorld{1};

// The buffer is 4096 records: on the heap, not on the test's stack.
inline std::unique_ptr<CollectiveTimer> timer_on(const ManualSource& source,
                                                 CollectiveSet timed = kAllCollectives,
                                                 bool concurrent = false) {
  return std::make_unique<CollectiveTimer>(clock::TickStamp(source, clock::TickStamp::Ticks::never),
                                           timed, concurrent, kNull);
}

}  // namespace harmonize::collectives::testing
