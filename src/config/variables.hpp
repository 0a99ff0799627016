#pragma once
// The one table of HARMONIZE_* variables. Parsing, validation, the "did you
// mean" suggestion and the README table are all derived from it, so a new
// variable is added here and nowhere else.
#include <span>
#include <string_view>

namespace harmonize::config {

enum class Kind {
  choice,            // one of `choices`
  duration,          // number with ns/us/ms/s, within [min, max] seconds
  duration_or_auto,  // "auto" or a duration
  number,            // plain real number within [min, max]
  integer,           // whole number within [min, max]
  flag,              // 0 or 1
  ppm,               // number with the unit ppm, |value| within [min, max]
  text,              // free text (paths, templates)
};

struct Variable {
  std::string_view name;
  Kind kind;
  std::string_view default_value;
  std::string_view choices;  // '|'-separated, for Kind::choice
  double min = 0;
  double max = 0;
  std::string_view help;
};

std::span<const Variable> all_variables();
const Variable* find_variable(std::string_view name);

// "what is accepted" wording for error messages, derived from the entry.
std::string accepted_values(const Variable& variable);

}  // namespace harmonize::config
