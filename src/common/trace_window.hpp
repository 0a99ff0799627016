#pragma once
// HARMONIZE_TRACE_WINDOW's value, parsed (config/trace_window.hpp) and
// applied (harmonize/trace/call_window.hpp): which calls of each
// communicator the timeline keeps. std only.
#include <cstdint>

namespace harmonize {

struct TraceWindow {
  enum class Kind : std::uint8_t { edges, all, range };
  Kind kind = Kind::edges;
  // edges: the first `count` and the last `count` calls.
  std::uint64_t count = 1000;
  // range: the calls first, first + 1, ..., end - 1 (0-based, per communicator).
  std::uint64_t first = 0;
  std::uint64_t end = 0;

  bool operator==(const TraceWindow&) const = default;
};

}  // namespace harmonize
