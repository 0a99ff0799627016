#pragma once
// Everything a variable's kind decides, in one row per kind (KindRow<kind>):
// whether a value is valid for a variable, its canonical text (equal for
// every spelling of one value, so that ranks compare what they run with),
// what the messages say is accepted, and the typed value its Policy field
// receives. A new kind is a name in Kind (variables.hpp) and a row here;
// nothing else switches on the kind. Pure.
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/arrival_pattern.hpp"
#include "common/choices.hpp"
#include "common/collective_kind.hpp"
#include "config/arrival.hpp"
#include "config/collective_set.hpp"
#include "config/interleave.hpp"
#include "config/trace_window.hpp"
#include "config/values.hpp"
#include "config/variables.hpp"

namespace harmonize::config {

// Why `value` (trimmed) is not valid for `variable`, as the tail of an error
// after its name ("" when it is valid).
std::string value_problem(const Variable& variable, std::string_view value);
// The canonical text of a value that passed validation.
std::string canonical_value(const Variable& variable, std::string_view value);
// What `variable` accepts, as the messages and `harmonize-config` say it.
std::string accepted_values(const Variable& variable);

// A row: `problem` ("" or why not valid), `canonical`, `accepted` (defined
// in kinds.cpp) and `typed<T>`, the value of a valid text for a field of type
// T, whose static_asserts reject a table entry binding a kind to a field of
// another type (a duration written into an int).
template <Kind kind>
struct KindRow;

// A row whose field type T must satisfy `check` (parenthesized) and whose
// typed value is the expression after it, of the text `value`.
#define HARMONIZE_KIND_ROW(kind, check, ...)                               \
  template <>                                                              \
  struct KindRow<Kind::kind> {                                             \
    static std::string problem(const Variable& v, std::string_view value); \
    static std::string canonical(std::string_view value);                  \
    static std::string accepted(const Variable& v);                        \
    template <typename T>                                                  \
    static T typed(std::string_view value) {                               \
      static_assert(check);                                                \
      return __VA_ARGS__;                                                  \
    }                                                                      \
  };

HARMONIZE_KIND_ROW(choice, std::is_enum_v<T>, *choices::parse_choice<T>(value))
HARMONIZE_KIND_ROW(duration, (std::is_same_v<T, double>), *parse_duration(value))
HARMONIZE_KIND_ROW(duration_or_auto, (std::is_same_v<T, std::optional<double>>),
                   value == "auto" ? std::optional<double>() : parse_duration(value))
HARMONIZE_KIND_ROW(number, (std::is_same_v<T, double>), *parse_number(value))
// The range check keeps an integer within T.
HARMONIZE_KIND_ROW(integer, (std::is_integral_v<T> && !std::is_same_v<T, bool>),
                   static_cast<T>(*parse_integer(value)))
HARMONIZE_KIND_ROW(flag, (std::is_same_v<T, bool>), value == "1")
// ppm and percent: the field holds a fraction.
HARMONIZE_KIND_ROW(ppm, (std::is_same_v<T, double>), *parse_ppm(value) * 1e-6)
HARMONIZE_KIND_ROW(percent, (std::is_same_v<T, double>), *parse_percent(value) / 100)
HARMONIZE_KIND_ROW(text, (std::is_same_v<T, std::string>), std::string(value))
HARMONIZE_KIND_ROW(report, (std::is_same_v<T, std::string>), std::string(value))
HARMONIZE_KIND_ROW(collectives, (std::is_same_v<T, CollectiveSet>), *parse_collective_set(value))
HARMONIZE_KIND_ROW(arrival, (std::is_same_v<T, ArrivalPattern>), [&] {
  std::string why;
  return *parse_arrival(value, why);
}())
HARMONIZE_KIND_ROW(window, (std::is_same_v<T, TraceWindow>), [&] {
  std::string why;
  return *parse_trace_window(value, why);
}())
HARMONIZE_KIND_ROW(interleave, (std::is_same_v<T, InterleaveSides>), [&] {
  std::string why;
  return *parse_interleave(value, why);
}())

#undef HARMONIZE_KIND_ROW

}  // namespace harmonize::config
