#pragma once
// FNV-1a over bytes: equal inputs give equal numbers on every rank and
// machine (the ranks compare their policies through it). std only.
#include <cstdint>
#include <string_view>

namespace harmonize {

constexpr std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return hash;
}

}  // namespace harmonize
