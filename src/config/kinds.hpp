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

#define HARMONIZE_KIND_ROW_FUNCTIONS                                     \
  static std::string problem(const Variable& v, std::string_view value); \
  static std::string canonical(std::string_view value);                  \
  static std::string accepted(const Variable& v)

template <>
struct KindRow<Kind::choice> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_enum_v<T>);
    return *choices::parse_choice<T>(value);
  }
};
template <>
struct KindRow<Kind::duration> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, double>);
    return *parse_duration(value);
  }
};
template <>
struct KindRow<Kind::duration_or_auto> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, std::optional<double>>);
    return value == "auto" ? std::optional<double>() : parse_duration(value);
  }
};
template <>
struct KindRow<Kind::number> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, double>);
    return *parse_number(value);
  }
};
template <>
struct KindRow<Kind::integer> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
    return static_cast<T>(*parse_integer(value));  // the range check keeps it within T
  }
};
template <>
struct KindRow<Kind::flag> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, bool>);
    return value == "1";
  }
};
template <>
struct KindRow<Kind::ppm> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, double>);
    return *parse_ppm(value) * 1e-6;  // the field holds a fraction
  }
};
template <>
struct KindRow<Kind::percent> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, double>);
    return *parse_percent(value) / 100;  // the field holds a fraction
  }
};
template <>
struct KindRow<Kind::text> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, std::string>);
    return std::string(value);
  }
};
template <>
struct KindRow<Kind::report> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, std::string>);
    return std::string(value);
  }
};
template <>
struct KindRow<Kind::collectives> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, CollectiveSet>);
    return *parse_collective_set(value);
  }
};
template <>
struct KindRow<Kind::arrival> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, ArrivalPattern>);
    std::string why;
    return *parse_arrival(value, why);
  }
};
template <>
struct KindRow<Kind::window> {
  HARMONIZE_KIND_ROW_FUNCTIONS;
  template <typename T>
  static T typed(std::string_view value) {
    static_assert(std::is_same_v<T, TraceWindow>);
    std::string why;
    return *parse_trace_window(value, why);
  }
};

#undef HARMONIZE_KIND_ROW_FUNCTIONS

}  // namespace harmonize::config
