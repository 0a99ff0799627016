#pragma once
// Pure parsers for the value syntaxes of the policy. Each consumes the whole
// string or fails: "20usx", "1e400" or "" never become a silent default.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace harmonize::config {

// Without leading and trailing blanks (spaces, tabs, CR, LF).
std::string_view trim(std::string_view text);

std::optional<double> parse_duration(std::string_view text);  // seconds
std::optional<double> parse_number(std::string_view text);
std::optional<std::int64_t> parse_integer(std::string_view text);
std::optional<double> parse_ppm(std::string_view text);      // in ppm, sign kept
std::optional<double> parse_percent(std::string_view text);  // "0.5%" -> 0.5

// Shortest faithful rendering for messages: 2e-05 s -> "20us", 1 -> "1s".
std::string format_seconds(double seconds);
std::string format_number(double value);

}  // namespace harmonize::config
