#pragma once
// How a user's value appears inside a one-line error message. Pure.
#include <cstddef>
#include <string>
#include <string_view>

namespace harmonize::config {

// `text` made safe for one terminal line: control characters, invalid UTF-8
// and invisible characters (BOM, zero-width, bidi overrides, C1 controls)
// escaped as \n, \t, \xNN or \uXXXX, a backslash doubled so that escapes are
// unambiguous, and the result cut after `max_chars` characters with "…".
std::string display_value(std::string_view text, std::size_t max_chars = 80);

// display_value(text) in single quotes: a user's word inside a sentence.
std::string quoted_value(std::string_view text);

}  // namespace harmonize::config
