#include <catch2/catch.hpp>

#include <string>

#include "config/display.hpp"

using namespace harmonize::config;

TEST_CASE("printable values are shown as they are", "[config][display]") {
  CHECK(display_value("20us") == "20us");
  CHECK(display_value("/tmp/r %j.json") == "/tmp/r %j.json");
  CHECK(display_value("caf\xc3\xa9") == "caf\xc3\xa9");  // valid UTF-8 stays readable
  CHECK(display_value("") == "");
}

TEST_CASE("control characters are escaped so that a message stays one line", "[config][display]") {
  CHECK(display_value("a\nb") == "a\\nb");
  CHECK(display_value("a\rb\tc") == "a\\rb\\tc");
  CHECK(display_value("\x1b[31mred") == "\\x1b[31mred");
  CHECK(display_value(std::string("of\0f", 4)) == "of\\x00f");
  CHECK(display_value("del\x7f") == "del\\x7f");
  CHECK(display_value("back\\slash") == "back\\\\slash");  // so that "\n" is unambiguous
}

TEST_CASE("invisible and invalid characters are made visible", "[config][display]") {
  CHECK(display_value("\xef\xbb\xbfoff") == "\\uFEFFoff");  // byte order mark
  CHECK(display_value("a\xe2\x80\x8b"
                      "b") == "a\\u200Bb");  // zero width space
  CHECK(display_value("a\xe2\x80\xae"
                      "b") == "a\\u202Eb");  // right-to-left override
  CHECK(display_value("\xc2\x9b"
                      "31m") == "\\u009B31m");  // C1 control (CSI)
  CHECK(display_value("a\xff"
                      "b") == "a\\xffb");            // not UTF-8
  CHECK(display_value("a\xc3") == "a\\xc3");         // truncated sequence
  CHECK(display_value("\xc0\xaf") == "\\xc0\\xaf");  // overlong encoding
}

TEST_CASE("long values are cut at 80 characters", "[config][display]") {
  const std::string exactly(80, 'x');
  CHECK(display_value(exactly) == exactly);
  CHECK(display_value(std::string(100000, 'x')) == std::string(80, 'x') + "\xe2\x80\xa6");
  // An escape is never cut in the middle.
  const std::string shown = display_value(std::string(79, 'x') + "\n" + std::string(10, 'y'));
  CHECK(shown == std::string(79, 'x') + "\xe2\x80\xa6");
  CHECK(display_value(std::string(200, '\n')).size() < 200);
}
