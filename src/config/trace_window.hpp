#pragma once
// HARMONIZE_TRACE_WINDOW: "N" (the first N and the last N calls of each
// communicator), "all", or "A:B" (calls A to B-1, counted from 0 on each
// communicator, as a Python slice). Pure.
#include <optional>
#include <string>
#include <string_view>

#include "common/trace_window.hpp"

namespace harmonize::config {

inline constexpr std::string_view kTraceWindowSyntax =
    "N (the first N and the last N calls of each communicator, N >= 1), all, or A:B (its calls "
    "A to B-1, from 0)";

// The window, or nullopt with `why` saying what is wrong.
std::optional<TraceWindow> parse_trace_window(std::string_view text, std::string& why);
// The canonical text: "1000", "all", "10:20".
std::string trace_window_text(const TraceWindow& window);

}  // namespace harmonize::config
