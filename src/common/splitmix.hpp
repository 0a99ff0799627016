#pragma once
// splitmix64: a tiny, well-mixed, platform-independent hash. Whatever uses it
// (test clocks, the simulator) gets the same numbers on every rank and machine,
// which is the point: every process must derive the same skews.
#include <cstdint>

namespace harmonize {

constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace harmonize
