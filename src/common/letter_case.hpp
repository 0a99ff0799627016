#pragma once
// ASCII case folding for names users write in either case (ALLREDUCE,
// allreduce). Pure; the C locale's rules whatever the host program set.
#include <string>
#include <string_view>

namespace harmonize {

inline std::string upper_case(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

inline std::string lower_case(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace harmonize
