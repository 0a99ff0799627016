#pragma once
// Values as their bytes in this machine's order, for what travels between
// the ranks of one build (a clock model, a timeline's spans): std only.
#include <cstddef>
#include <cstring>
#include <span>
#include <type_traits>

namespace harmonize {

// Appends `value`'s bytes to `out` (a std::string or a std::vector<std::byte>).
template <typename Bytes, typename T>
void append_raw(Bytes& out, const T& value) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(typename Bytes::value_type) == 1);
  const auto* raw = reinterpret_cast<const typename Bytes::value_type*>(&value);
  out.insert(out.end(), raw, raw + sizeof value);
}

// The T whose bytes start at `at` (the caller has checked that they are there).
template <typename T, typename Unit>
T read_raw(std::span<const Unit> bytes, std::size_t at) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(Unit) == 1);
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

}  // namespace harmonize
