#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "clock/tick_stamp.hpp"
#include "clock/time_source.hpp"

namespace harmonize::clock {

// Only an invariant TSC ticks at a constant rate through frequency changes and
// sleep states; anything else is not a clock.
bool cpu_has_invariant_tsc(std::string& why) {
#if defined(HARMONIZE_SMPI)
  // SimGrid simulates clock_gettime and MPI_Wtime, not the TSC: it would
  // count the simulator's own cycles.
  why = "SimGrid/SMPI does not simulate the TSC; use HARMONIZE_TIMESOURCE=monotonic or wtime";
  return false;
#elif !defined(HARMONIZE_HAS_TSC)
  why = "no TSC on this architecture; use HARMONIZE_TIMESOURCE=monotonic";
  return false;
#else
  std::ifstream cpuinfo("/proc/cpuinfo");
  if (!cpuinfo) {
    why = "cannot read /proc/cpuinfo to check for an invariant TSC";
    return false;
  }
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    bool constant = false, nonstop = false;
    for (std::string word; words >> word;) {
      constant = constant || word == "constant_tsc";
      nonstop = nonstop || word == "nonstop_tsc";
    }
    if (constant && nonstop) return true;
    why = "the CPU lacks ";
    why += !constant ? (!nonstop ? "constant_tsc and nonstop_tsc" : "constant_tsc") : "nonstop_tsc";
    why += " (see /proc/cpuinfo); use HARMONIZE_TIMESOURCE=monotonic";
    return false;
  }
  why = "no CPU flags in /proc/cpuinfo; cannot confirm an invariant TSC";
  return false;
#endif
}

namespace {

#ifdef HARMONIZE_HAS_TSC
class TscSource final : public TimeSource {
 public:
  explicit TscSource(const TimeSource& reference) { calibrate(reference); }
  double now() const noexcept override {
    return base_seconds_ + static_cast<double>(__rdtsc() - base_ticks_) * seconds_per_tick_;
  }
  const char* name() const noexcept override { return "tsc"; }

 private:
  // Ticks are counted from a base taken at construction so the product stays
  // small; the rate comes from a 20 ms window against the monotonic clock,
  // enough for ~0.1 ppm (clock_gettime reads are ~20 ns apart). The remaining
  // rate error is a drift like any other, which the clock models absorb.
  void calibrate(const TimeSource& reference) {
    constexpr int kAttempts = 8;
    const TscPair first = tightest_tsc_pair(reference, kAttempts);
    TscPair last = first;
    while (last.seconds - first.seconds < 0.02) last = tightest_tsc_pair(reference, kAttempts);
    seconds_per_tick_ =
        (last.seconds - first.seconds) / static_cast<double>(last.ticks - first.ticks);
    base_ticks_ = last.ticks;
    base_seconds_ = last.seconds;
  }

  double base_seconds_ = 0;
  std::uint64_t base_ticks_ = 0;
  double seconds_per_tick_ = 0;
};
#endif

}  // namespace

std::unique_ptr<TimeSource> make_tsc_source(std::string& why) {
#ifdef HARMONIZE_HAS_TSC
  if (!cpu_has_invariant_tsc(why)) return nullptr;
  auto monotonic = make_monotonic_source();
  return std::make_unique<TscSource>(*monotonic);
#else
  why = "no TSC on this architecture; use HARMONIZE_TIMESOURCE=monotonic";
  return nullptr;
#endif
}

}  // namespace harmonize::clock
