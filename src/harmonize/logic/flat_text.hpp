#pragma once
// Text inside the flat vectors of doubles that carry records between ranks:
// the length, then one character per double.
#include <span>
#include <string>
#include <vector>

namespace harmonize::logic {

inline void append_text(std::vector<double>& out, const std::string& text) {
  out.push_back(static_cast<double>(text.size()));
  for (unsigned char c : text) out.push_back(c);
}

// False (and `at` somewhere inside) when the data is malformed.
inline bool read_text(std::span<const double> in, std::size_t& at, std::string& text) {
  if (at >= in.size()) return false;
  const auto n = static_cast<std::size_t>(in[at++]);
  if (n > in.size() - at) return false;
  text.clear();
  for (std::size_t i = 0; i < n; ++i) text.push_back(static_cast<char>(in[at++]));
  return true;
}

}  // namespace harmonize::logic
