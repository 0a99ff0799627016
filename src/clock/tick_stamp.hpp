#pragma once
// The cheapest stamp there is, for the hot path of the collective timer: the
// invariant TSC where the CPU has one (one instruction, ~10 ns on a VM, where
// clock_gettime costs ~25 ns), converted to a time source's seconds later,
// off the hot path, by interpolation between two paired reads of both taken
// around it. Without an invariant TSC the stamp is the source's own reading.
#include <cstdint>
#include <string>

#include "clock/time_source.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HARMONIZE_HAS_TSC 1
#endif

namespace harmonize::clock {

class TickStamp {
 public:
  // One instant read on both: TSC ticks (or the source's seconds) and the
  // source's seconds.
  struct Pair {
    double stamp = 0;
    double seconds = 0;
  };

  // Whether to stamp with the TSC: where the CPU has an invariant one, or
  // never (the stamps are then the source's readings, which a test knows).
  enum class Ticks { if_invariant, never };

  explicit TickStamp(const TimeSource& source, Ticks ticks = Ticks::if_invariant);

  double stamp() const noexcept {
#ifdef HARMONIZE_HAS_TSC
    if (ticks_) return static_cast<double>(__rdtsc());  // exact below 2^53 ticks (34 days at 3 GHz)
#endif
    return source_.now();
  }
  // The tightest of a few brackets, so that a read interrupted by the
  // scheduler does not put the pair microseconds off.
  Pair pair() const noexcept;
  // The source's seconds at `stamp`, taken between (or near) `a` and `b`.
  double seconds_at(const Pair& a, const Pair& b, double stamp) const noexcept;

 private:
  const TimeSource& source_;
  bool ticks_ = false;
};

// Whether the CPU's TSC ticks at a constant rate through frequency changes
// and sleep states; `why` says what is missing otherwise.
bool cpu_has_invariant_tsc(std::string& why);

#ifdef HARMONIZE_HAS_TSC
// One instant on the TSC and on `source`: the tightest of `attempts` reads
// of the source bracketed by two TSC reads (a read interrupted by the
// scheduler, or the first, cold one, would put the pair microseconds off).
struct TscPair {
  std::uint64_t ticks = 0;  // the bracket's midpoint
  double seconds = 0;
};
TscPair tightest_tsc_pair(const TimeSource& source, int attempts) noexcept;
#endif

}  // namespace harmonize::clock
