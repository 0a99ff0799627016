#include "config/kinds.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

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

std::string not_valid(const Variable& v, bool valid, std::string (*accepted)(const Variable&)) {
  return valid ? std::string() : " is not valid: expected " + accepted(v);
}

template <typename Number>
bool within(const std::optional<Number>& number, const Variable& v) {
  return number && *number >= v.min && *number <= v.max;
}

}  // namespace

// --- choice: one of the enum's names ---------------------------------------
using Choice = KindRow<Kind::choice>;
std::string Choice::problem(const Variable& v, std::string_view value) {
  return not_valid(v, std::find(v.choices.begin(), v.choices.end(), value) != v.choices.end(),
                   &accepted);
}
std::string Choice::canonical(std::string_view value) {
  return std::string(value);
}
std::string Choice::accepted(const Variable& v) {
  std::string text = "one of ";
  for (std::size_t i = 0; i < v.choices.size(); ++i)
    text += (i > 0 ? ", " : "") + std::string(v.choices[i]);
  return text;
}

// --- duration: ns/us/ms/s within [min, max] seconds -------------------------
using Duration = KindRow<Kind::duration>;
std::string Duration::problem(const Variable& v, std::string_view value) {
  const auto seconds = parse_duration(value);
  // Zero is the documented "off" of the test clock offset only.
  return not_valid(v, within(seconds, v) || (seconds && *seconds == 0 && v.min == 0), &accepted);
}
std::string Duration::canonical(std::string_view value) {
  return rounded(parse_duration(value).value_or(-1)) + "s";
}
std::string Duration::accepted(const Variable& v) {
  // The default is the most natural example, unless it is the zero "off".
  const std::string example = parse_duration(v.default_value).value_or(0) > 0
                                  ? std::string(v.default_value)
                                  : std::string("20us");
  return "a duration with unit ns, us, ms or s, from " + format_seconds(v.min) + " to " +
         format_seconds(v.max) + " (e.g. " + example + ")";
}

// --- duration_or_auto: "auto" or a duration ---------------------------------
using DurationOrAuto = KindRow<Kind::duration_or_auto>;
std::string DurationOrAuto::problem(const Variable& v, std::string_view value) {
  if (value == "auto") return {};
  return Duration::problem(v, value).empty() ? std::string() : not_valid(v, false, &accepted);
}
std::string DurationOrAuto::canonical(std::string_view value) {
  return value == "auto" ? std::string("auto") : Duration::canonical(value);
}
std::string DurationOrAuto::accepted(const Variable& v) {
  return "'auto' or a duration with unit ns, us, ms or s, from " + format_seconds(v.min) + " to " +
         format_seconds(v.max) + " (e.g. 20us)";
}

// --- number, integer --------------------------------------------------------
using Number = KindRow<Kind::number>;
std::string Number::problem(const Variable& v, std::string_view value) {
  return not_valid(v, within(parse_number(value), v), &accepted);
}
std::string Number::canonical(std::string_view value) {
  return rounded(parse_number(value).value_or(-1));
}
std::string Number::accepted(const Variable& v) {
  return "a number from " + format_number(v.min) + " to " + format_number(v.max);
}

using Integer = KindRow<Kind::integer>;
std::string Integer::problem(const Variable& v, std::string_view value) {
  return not_valid(v, within(parse_integer(value), v), &accepted);
}
std::string Integer::canonical(std::string_view value) {
  return std::to_string(parse_integer(value).value_or(-1));
}
std::string Integer::accepted(const Variable& v) {
  return "a whole number from " + format_number(v.min) + " to " + format_number(v.max);
}

// --- flag: 0 or 1 -----------------------------------------------------------
using Flag = KindRow<Kind::flag>;
std::string Flag::problem(const Variable& v, std::string_view value) {
  return not_valid(v, value == "0" || value == "1", &accepted);
}
std::string Flag::canonical(std::string_view value) {
  return std::string(value);
}
std::string Flag::accepted(const Variable&) {
  return "0 or 1";
}

// --- ppm, percent: numbers with their unit ----------------------------------
using Ppm = KindRow<Kind::ppm>;
std::string Ppm::problem(const Variable& v, std::string_view value) {
  return not_valid(v, within(parse_ppm(value), v), &accepted);
}
std::string Ppm::canonical(std::string_view value) {
  return rounded(parse_ppm(value).value_or(-1)) + "ppm";
}
std::string Ppm::accepted(const Variable& v) {
  return "a drift with unit ppm, from 0ppm to " + format_number(v.max) + "ppm (e.g. 50ppm)";
}

using Percent = KindRow<Kind::percent>;
std::string Percent::problem(const Variable& v, std::string_view value) {
  return not_valid(v, within(parse_percent(value), v), &accepted);
}
std::string Percent::canonical(std::string_view value) {
  return rounded(parse_percent(value).value_or(-1)) + "%";
}
std::string Percent::accepted(const Variable& v) {
  return "a percentage, from " + format_number(v.min) + "% to " + format_number(v.max) +
         "% (e.g. " + std::string(v.default_value) + ")";
}

// --- text, report -----------------------------------------------------------
using Text = KindRow<Kind::text>;
std::string Text::problem(const Variable&, std::string_view) {
  return {};
}
std::string Text::canonical(std::string_view value) {
  return std::string(value);
}
std::string Text::accepted(const Variable&) {
  return "any text";
}

using Report = KindRow<Kind::report>;
std::string Report::problem(const Variable& v, std::string_view value) {
  // The file system is checked at MPI_Init (report_target.hpp); a name that
  // cannot be a file is wrong in any mode.
  return not_valid(v, !value.empty() && value.back() != '/', &accepted);
}
std::string Report::canonical(std::string_view value) {
  return std::string(value);
}
std::string Report::accepted(const Variable&) {
  return "'none' or a file name template (%j job id or pid of rank 0, %h host, %% percent)";
}

// --- collectives, arrival ---------------------------------------------------
using Collectives = KindRow<Kind::collectives>;
std::string Collectives::problem(const Variable& v, std::string_view value) {
  return not_valid(v, parse_collective_set(value).has_value(), &accepted);
}
std::string Collectives::canonical(std::string_view value) {
  const auto set = parse_collective_set(value);
  return set ? collective_set_text(*set) : std::string(value);
}
std::string Collectives::accepted(const Variable&) {
  std::string text = "'all', 'none' or a comma-separated list of ";
  for (std::size_t i = 0; i < kCollectiveNames.size(); ++i)
    text += (i > 0 ? ", " : "") + std::string(kCollectiveNames[i]);
  return text + " (any case, MPI_ prefix allowed)";
}

using Arrival = KindRow<Kind::arrival>;
std::string Arrival::problem(const Variable& v, std::string_view value) {
  std::string why;
  if (parse_arrival(value, why)) return {};
  return " is not valid: " + why + "; expected " + accepted(v);
}
std::string Arrival::canonical(std::string_view value) {
  std::string why;
  const auto pattern = parse_arrival(value, why);
  return pattern ? arrival_text(*pattern) : std::string(value);
}
std::string Arrival::accepted(const Variable&) {
  return std::string(kArrivalSyntax);
}

using Interleave = KindRow<Kind::interleave>;
std::string Interleave::problem(const Variable& v, std::string_view value) {
  std::string why;
  if (parse_interleave(value, why)) return {};
  return " is not valid: " + why + "; expected " + accepted(v);
}
std::string Interleave::canonical(std::string_view value) {
  std::string why;
  const auto sides = parse_interleave(value, why);
  return sides ? interleave_text(*sides) : std::string(value);
}
std::string Interleave::accepted(const Variable&) {
  return std::string(kInterleaveSyntax);
}

using Window = KindRow<Kind::window>;
std::string Window::problem(const Variable& v, std::string_view value) {
  std::string why;
  if (parse_trace_window(value, why)) return {};
  return " is not valid: " + why + "; expected " + accepted(v);
}
std::string Window::canonical(std::string_view value) {
  std::string why;
  const auto window = parse_trace_window(value, why);
  return window ? trace_window_text(*window) : std::string(value);
}
std::string Window::accepted(const Variable&) {
  return std::string(kTraceWindowSyntax);
}

// --- the one dispatch --------------------------------------------------------
namespace {

struct RowFunctions {
  std::string (*problem)(const Variable&, std::string_view);
  std::string (*canonical)(std::string_view);
  std::string (*accepted)(const Variable&);
};

template <Kind kind>
constexpr RowFunctions row() {
  return {&KindRow<kind>::problem, &KindRow<kind>::canonical, &KindRow<kind>::accepted};
}

// In Kind's order.
constexpr std::array kRows{
    row<Kind::choice>(), row<Kind::duration>(),    row<Kind::duration_or_auto>(),
    row<Kind::number>(), row<Kind::integer>(),     row<Kind::flag>(),
    row<Kind::ppm>(),    row<Kind::percent>(),     row<Kind::text>(),
    row<Kind::report>(), row<Kind::collectives>(), row<Kind::arrival>(),
    row<Kind::window>(), row<Kind::interleave>()};
static_assert(kRows.size() == static_cast<std::size_t>(Kind::interleave) + 1,
              "every Kind has a row, in Kind's order");

const RowFunctions& row_of(Kind kind) {
  return kRows.at(static_cast<std::size_t>(kind));
}

}  // namespace

std::string value_problem(const Variable& variable, std::string_view value) {
  return row_of(variable.kind).problem(variable, value);
}

std::string canonical_value(const Variable& variable, std::string_view value) {
  return row_of(variable.kind).canonical(trim(value));
}

std::string accepted_values(const Variable& variable) {
  return row_of(variable.kind).accepted(variable);
}

}  // namespace harmonize::config
