#include "config/canonical.hpp"

#include <cstdio>

#include "config/arrival.hpp"
#include "config/collective_set.hpp"
#include "config/values.hpp"

namespace harmonize::config {
namespace {

// 12 significant digits: spellings of one value that parse to neighbouring
// doubles ("0.02ms" and "20us" differ in the last bit) print the same, while
// any difference a user can mean is far above that.
std::string rounded(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.12g", value);
  return buffer;
}

}  // namespace

std::string canonical_value(const Variable& variable, std::string_view value) {
  value = trim(value);
  switch (variable.kind) {
    case Kind::duration_or_auto:
      if (value == "auto") return "auto";
      [[fallthrough]];
    case Kind::duration:
      return rounded(parse_duration(value).value_or(-1)) + "s";
    case Kind::number:
      return rounded(parse_number(value).value_or(-1));
    case Kind::integer:
      return std::to_string(parse_integer(value).value_or(-1));
    case Kind::ppm:
      return rounded(parse_ppm(value).value_or(-1)) + "ppm";
    case Kind::percent:
      return rounded(parse_percent(value).value_or(-1)) + "%";
    case Kind::collectives:
      if (const auto set = parse_collective_set(value)) return collective_set_text(*set);
      break;
    case Kind::arrival: {
      std::string why;
      if (const auto pattern = parse_arrival(value, why)) return arrival_text(*pattern);
      break;
    }
    case Kind::choice:
    case Kind::flag:
    case Kind::text:
    case Kind::report:
      break;
  }
  return std::string(value);
}

}  // namespace harmonize::config
