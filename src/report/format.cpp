#include "report/format.hpp"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace harmonize::report {

namespace {

std::string three_digits(double value, const char* unit) {
  char buffer[64];
  // %.3g switches to exponent notation at 1000; values here are < 1000 except
  // for long durations in seconds, which read better as plain integers.
  if (std::fabs(value) >= 1000.0) {
    std::snprintf(buffer, sizeof buffer, "%.0f %s", value, unit);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g %s", value, unit);
  }
  return buffer;
}

}  // namespace

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  const double magnitude = std::fabs(seconds);
  // Below 1 us nanoseconds are shown whole: sub-ns digits are clock noise.
  if (magnitude < 1e-6) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.0f ns", seconds * 1e9 + 0.0);
    return buffer;
  }
  // Rounding to 3 digits can carry into the next unit (999.7 us -> 1e+03 us),
  // so the unit is chosen on the rounded magnitude.
  auto rounded = [](double x) { return std::stod(three_digits(x, "")); };
  if (rounded(magnitude * 1e6) < 1000.0) return three_digits(seconds * 1e6, "us");
  if (rounded(magnitude * 1e3) < 1000.0) return three_digits(seconds * 1e3, "ms");
  return three_digits(seconds, "s");
}

std::string format_percent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3g%%", fraction * 100.0);
  return buffer;
}

std::string iso8601_utc(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

}  // namespace harmonize::report
