#pragma once
// What a benchmark program does between two barriers: nothing, a sleep or a
// busy spin of a given length, or a mix drawn anew at each call (a program
// whose iteration length changes from call to call). The barrier's slack is
// measured against it (docs/barrier.md, "Long work between barriers").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace harmonize::tools {

struct BetweenCalls {
  enum class Kind { none, sleep, spin, mix };
  Kind kind = Kind::none;
  double seconds = 0;  // sleep and spin
};

// "none", "sleep:DURATION", "spin:DURATION" or "mix" (0, 10 us, 100 us, 1 ms,
// 10 ms or 100 ms, sleeping or spinning, drawn per call from the call's
// index: every rank draws alike). Durations as the policy's ("100us").
std::optional<BetweenCalls> parse_between_calls(std::string_view text);
std::string describe(const BetweenCalls& work);

// What call `index` does: sleep (false) or spin (true), and how long.
struct WorkStep {
  bool spin = false;
  double seconds = 0;
};
WorkStep step_of(const BetweenCalls& work, std::uint64_t index);

// Does it: nanosleep, or a spin on CLOCK_MONOTONIC.
void do_work(const WorkStep& step);

}  // namespace harmonize::tools
