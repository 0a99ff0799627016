#pragma once
// Human-readable numbers for the one-line summary (ASCII only: "us", not "µs",
// because stderr may end up in logs that are not UTF-8).

#include <chrono>
#include <string>

namespace harmonize::report {

// 3 significant digits in the largest unit that keeps the number >= 1:
// 4.2e-8 -> "42 ns", 1.234e-6 -> "1.23 us", 0.0125 -> "12.5 ms", 2 -> "2 s".
std::string format_duration(double seconds);

// A fraction as a percentage with up to 3 significant digits: 0.003 -> "0.3%".
std::string format_percent(double fraction);

// "2026-11-22T00:20:15Z" (seconds resolution, always UTC).
std::string iso8601_utc(std::chrono::system_clock::time_point when);

}  // namespace harmonize::report
