#include "clock/tick_stamp.hpp"

#include <string>

namespace harmonize::clock {

TickStamp::TickStamp(const TimeSource& source) : source_(source) {
#ifdef HARMONIZE_HAS_TSC
  std::string why;
  ticks_ = cpu_has_invariant_tsc(why);
#endif
}

TickStamp::Pair TickStamp::pair() const noexcept {
  if (!ticks_) {
    const double now = source_.now();
    return {now, now};
  }
  Pair best;
  double best_width = -1;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const double before = stamp();
    const double seconds = source_.now();
    const double after = stamp();
    if (best_width < 0 || after - before < best_width) {
      best_width = after - before;
      best = {before + (after - before) / 2, seconds};
    }
  }
  return best;
}

double TickStamp::seconds_at(const Pair& a, const Pair& b, double stamp) const noexcept {
  if (!ticks_) return stamp;
  // Too close together for a rate: the nearer pair's rate is unknown, but
  // so is the distance to it (well under a microsecond).
  if (!(b.stamp - a.stamp > 0)) return b.seconds;
  return a.seconds + (stamp - a.stamp) * ((b.seconds - a.seconds) / (b.stamp - a.stamp));
}

}  // namespace harmonize::clock
