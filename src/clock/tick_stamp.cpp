#include "clock/tick_stamp.hpp"

#include <string>

namespace harmonize::clock {

TickStamp::TickStamp(const TimeSource& source, [[maybe_unused]] Ticks ticks) : source_(source) {
#ifdef HARMONIZE_HAS_TSC
  std::string why;
  ticks_ = ticks == Ticks::if_invariant && cpu_has_invariant_tsc(why);
#endif
}

TickStamp::Pair TickStamp::pair() const noexcept {
  if (!ticks_) {
    const double now = source_.now();
    return {now, now};
  }
#ifdef HARMONIZE_HAS_TSC
  const TscPair pair = tightest_tsc_pair(source_, 4);
  return {static_cast<double>(pair.ticks), pair.seconds};
#else
  return {};  // unreachable: no ticks without a TSC
#endif
}

#ifdef HARMONIZE_HAS_TSC
TscPair tightest_tsc_pair(const TimeSource& source, int attempts) noexcept {
  TscPair best;
  std::uint64_t best_width = ~std::uint64_t{0};
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const std::uint64_t before = __rdtsc();
    const double seconds = source.now();
    const std::uint64_t after = __rdtsc();
    if (after - before < best_width) {
      best_width = after - before;
      best = {before + (after - before) / 2, seconds};
    }
  }
  return best;
}
#endif

double TickStamp::seconds_at(const Pair& a, const Pair& b, double stamp) const noexcept {
  if (!ticks_) return stamp;
  // Too close together for a rate: the nearer pair's rate is unknown, but
  // so is the distance to it (well under a microsecond).
  if (!(b.stamp - a.stamp > 0)) return b.seconds;
  return a.seconds + (stamp - a.stamp) * ((b.seconds - a.seconds) / (b.stamp - a.stamp));
}

}  // namespace harmonize::clock
