#pragma once
// Local time sources. Everything above reads time through this interface so
// that tests can substitute clocks whose truth is known (skewed sources).
#include <memory>
#include <string>

#include "common/choices.hpp"

namespace harmonize::clock {

// Seconds as double: at a machine uptime of 1e7 s one ulp is still 2 ns, far
// below what any synchronization over a network can resolve.
class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual double now() const noexcept = 0;
  virtual const char* name() const noexcept = 0;
};

// clock_gettime(CLOCK_MONOTONIC): the default, and the truth of the test clocks.
std::unique_ptr<TimeSource> make_monotonic_source();

// Invariant TSC calibrated against the monotonic clock. Returns nullptr and
// fills `why` when the CPU lacks constant_tsc/nonstop_tsc (or is not x86).
std::unique_ptr<TimeSource> make_tsc_source(std::string& why);

// Any plain function returning seconds, e.g. PMPI_Wtime.
std::unique_ptr<TimeSource> make_function_source(double (*read)(), const char* name);

// Test clocks: local = truth * (1 + drift) + offset (drift as a fraction),
// without owning `truth` (which must outlive it): lets a test compare the
// skewed clock with the very source it is derived from.
std::unique_ptr<TimeSource> make_skewed_view(const TimeSource& truth, double offset, double drift);

// The source HARMONIZE_TIMESOURCE names (`wtime` is the function used for
// the latter, so this layer stays free of MPI). nullptr + `why` on failure.
std::unique_ptr<TimeSource> make_source(choices::TimeSourceKind kind, double (*wtime)(),
                                        std::string& why);

}  // namespace harmonize::clock
