#include "config/values.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace harmonize::config {
namespace {

// from_chars for double: whole string, finite.
std::optional<double> whole_double(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

// Split "12.5us" into number and unit at the first letter after the number.
std::pair<std::string_view, std::string_view> split_unit(std::string_view text) {
  std::size_t i = text.size();
  while (i > 0 && (std::isalpha(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '%'))
    --i;
  return {text.substr(0, i), text.substr(i)};
}

}  // namespace

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::optional<double> parse_duration(std::string_view text) {
  text = trim(text);
  auto [number, unit] = split_unit(text);
  // Dividing by an exact power of ten keeps "20us" at the double nearest to
  // 2e-05 (multiplying by 1e-6, itself inexact, does not).
  double per_second = 0;
  if (unit == "ns") {
    per_second = 1e9;
  } else if (unit == "us") {
    per_second = 1e6;
  } else if (unit == "ms") {
    per_second = 1e3;
  } else if (unit == "s") {
    per_second = 1.0;
  } else if (unit.empty() && number == "0") {
    return 0.0;  // zero needs no unit
  } else {
    return std::nullopt;
  }
  auto value = whole_double(number);
  if (!value || *value < 0) return std::nullopt;
  return *value / per_second;
}

std::optional<double> parse_number(std::string_view text) {
  return whole_double(trim(text));
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

namespace {

// A number with `wanted` as its unit; a bare 0 needs none.
std::optional<double> parse_with_unit(std::string_view text, std::string_view wanted) {
  text = trim(text);
  auto [number, unit] = split_unit(text);
  if (unit != wanted) {
    if (unit.empty() && number == "0") return 0.0;
    return std::nullopt;
  }
  return whole_double(number);
}

}  // namespace

std::optional<double> parse_ppm(std::string_view text) {
  return parse_with_unit(text, "ppm");
}

std::optional<double> parse_percent(std::string_view text) {
  return parse_with_unit(text, "%");
}

std::string format_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.15g", value);
  return buffer;
}

std::string format_seconds(double seconds) {
  struct Unit {
    const char* name;
    double scale;
  };
  static constexpr Unit units[] = {{"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  for (const Unit& unit : units) {
    if (std::fabs(seconds) >= unit.scale || unit.scale == 1e-9) {
      char buffer[40];
      std::snprintf(buffer, sizeof buffer, "%.6g%s", seconds / unit.scale, unit.name);
      return buffer;
    }
  }
  return format_number(seconds) + "s";
}

}  // namespace harmonize::config
