#pragma once
// An enum whose values have spellings (in HARMONIZE_* values, messages and
// reports), declared once: a list X(value, "spelling") gives the enum, the
// array of spellings in the order of the values, names() (found by
// argument-dependent lookup, so name_of and parse_choice take any such enum)
// and to_string(). A value cannot be added without its spelling. std only.
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#define HARMONIZE_ENUM_VALUE(value, spelling) value,
#define HARMONIZE_ENUM_SPELLING(value, spelling) std::string_view{spelling},

// Declares enum class `Type` with the values of `LIST` and kTypeNames.
#define HARMONIZE_NAMED_ENUM(Type, LIST)                                     \
  enum class Type { LIST(HARMONIZE_ENUM_VALUE) };                            \
  inline constexpr std::array k##Type##Names{LIST(HARMONIZE_ENUM_SPELLING)}; \
  constexpr std::span<const std::string_view> names(Type) {                  \
    return k##Type##Names;                                                   \
  }                                                                          \
  /* The spellings are string literals: data() is NUL-terminated. */         \
  constexpr const char* to_string(Type value) {                              \
    return k##Type##Names[static_cast<std::size_t>(value)].data();           \
  }
