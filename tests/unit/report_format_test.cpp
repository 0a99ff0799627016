#include <catch2/catch.hpp>

#include <chrono>

#include "report/format.hpp"

using namespace harmonize::report;

TEST_CASE("durations are printed in the unit that fits", "[report][format]") {
  CHECK(format_duration(0.0) == "0 ns");
  CHECK(format_duration(42e-9) == "42 ns");
  CHECK(format_duration(999e-9) == "999 ns");
  CHECK(format_duration(1.234e-6) == "1.23 us");
  CHECK(format_duration(12.34e-6) == "12.3 us");
  CHECK(format_duration(130e-6) == "130 us");
  CHECK(format_duration(999.7e-6) == "1 ms");  // rounding carries into the next unit
  CHECK(format_duration(0.0125) == "12.5 ms");
  CHECK(format_duration(2.0) == "2 s");
  CHECK(format_duration(1234.5) == "1234 s");
  CHECK(format_duration(-3e-6) == "-3 us");
  CHECK(format_duration(-0.0) == "0 ns");
}

TEST_CASE("fractions are printed as percentages", "[report][format]") {
  CHECK(format_percent(0.003) == "0.3%");
  CHECK(format_percent(0.0) == "0%");
  CHECK(format_percent(1.0) == "100%");
  CHECK(format_percent(0.125) == "12.5%");
  CHECK(format_percent(1.0 / 3.0) == "33.3%");
}

TEST_CASE("times are ISO-8601 in UTC", "[report][format]") {
  using namespace std::chrono;
  const auto when = system_clock::time_point{seconds{1'700'000'000}};
  CHECK(iso8601_utc(when) == "2023-11-14T22:13:20Z");
  CHECK(iso8601_utc(system_clock::time_point{}) == "1970-01-01T00:00:00Z");
}
