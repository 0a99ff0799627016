#pragma once
// The canonical text of a value: equal for every spelling of one parsed value
// ("20us", "20000ns", " 0.02ms"), so that ranks compare what they will run
// with, not how it was written. Pure.
#include <string>
#include <string_view>

#include "config/variables.hpp"

namespace harmonize::config {

// `value` must have passed validation against `variable`.
std::string canonical_value(const Variable& variable, std::string_view value);

}  // namespace harmonize::config
