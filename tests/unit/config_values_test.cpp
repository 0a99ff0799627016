#include <catch2/catch.hpp>

#include "config/preset.hpp"
#include "config/suggest.hpp"
#include "config/values.hpp"

using namespace harmonize::config;

TEST_CASE("durations need a unit and consume the whole string", "[config]") {
  CHECK(parse_duration("20us") == Approx(20e-6).epsilon(1e-15));
  CHECK(parse_duration("1.5ms") == Approx(1.5e-3).epsilon(1e-15));
  CHECK(parse_duration("250ns") == Approx(250e-9).epsilon(1e-15));
  CHECK(parse_duration("2s") == 2.0);
  CHECK(parse_duration(" 3s ") == 3.0);
  CHECK(parse_duration("0") == 0.0);
  CHECK_FALSE(parse_duration("20"));     // bare number: unit unknown
  CHECK_FALSE(parse_duration("20 us"));  // inner blank
  CHECK_FALSE(parse_duration("20usx"));  // trailing garbage
  CHECK_FALSE(parse_duration("us"));     // no number
  CHECK_FALSE(parse_duration(""));
  CHECK_FALSE(parse_duration("-5us"));    // negative
  CHECK_FALSE(parse_duration("1e999s"));  // not finite
  CHECK_FALSE(parse_duration("5min"));    // unknown unit
}

TEST_CASE("numbers and integers are strict", "[config]") {
  CHECK(parse_number("1.5") == 1.5);
  CHECK_FALSE(parse_number("1.5x"));
  CHECK_FALSE(parse_number("nan"));
  CHECK(parse_integer("42") == 42);
  CHECK_FALSE(parse_integer("4.2"));
  CHECK_FALSE(parse_integer("99999999999999999999"));  // overflow
  CHECK_FALSE(parse_integer(""));
}

TEST_CASE("drifts are given in ppm", "[config]") {
  CHECK(parse_ppm("50ppm") == 50.0);
  CHECK(parse_ppm("0") == 0.0);
  CHECK_FALSE(parse_ppm("50"));
  CHECK_FALSE(parse_ppm("50ms"));
}

TEST_CASE("durations render with the largest fitting unit", "[config]") {
  CHECK(format_seconds(20e-6) == "20us");
  CHECK(format_seconds(1.0) == "1s");
  CHECK(format_seconds(1.5e-3) == "1.5ms");
  CHECK(format_seconds(3e-9) == "3ns");
  CHECK(format_seconds(0) == "0ns");
}

TEST_CASE("presets are KEY=VALUE lines with comments", "[config]") {
  const Preset preset = parse_preset(
      "# a preset\n"
      "\n"
      "HARMONIZE_SLACK = 20us\n"
      "HARMONIZE_REPORT=\"out-%j.json\"\n"
      "  # indented comment\n"
      "HARMONIZE_MODE=harmonize");
  REQUIRE(preset.errors.empty());
  REQUIRE(preset.entries.size() == 3);
  CHECK(preset.entries[0].key == "HARMONIZE_SLACK");
  CHECK(preset.entries[0].value == "20us");
  CHECK(preset.entries[0].line == 3);
  CHECK(preset.entries[1].value == "out-%j.json");
  CHECK(preset.entries[2].line == 6);
}

TEST_CASE("malformed preset lines are reported with their number", "[config]") {
  const Preset preset = parse_preset("HARMONIZE_MODE=observe\nthis is not a setting\n=5\n");
  REQUIRE(preset.errors.size() == 2);
  CHECK(preset.errors[0] == "line 2: expected KEY=VALUE, got 'this is not a setting'");
  CHECK(preset.errors[1] == "line 3: expected KEY=VALUE, got '=5'");
  CHECK(preset.entries.size() == 1);
}

TEST_CASE("the closest variable name is suggested", "[config]") {
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(closest_variable("HARMONIZE_SLAK") == "HARMONIZE_SLACK");
  CHECK(closest_variable("HARMONIZE_MOD") == "HARMONIZE_MODE");
  CHECK(closest_variable("HARMONIZE_RESYNC_INTERVALL") == "HARMONIZE_RESYNC_INTERVAL");
  CHECK(closest_variable("HARMONIZE_XYZZY_PLUGH_FOO_BAR") == "");
}
