#include "config/trace_window.hpp"

#include <charconv>

#include "config/display.hpp"

namespace harmonize::config {
namespace {

std::optional<std::uint64_t> whole(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<TraceWindow> parse_trace_window(std::string_view text, std::string& why) {
  TraceWindow window;
  if (text == "all") {
    window.kind = TraceWindow::Kind::all;
    return window;
  }
  if (const auto colon = text.find(':'); colon != std::string_view::npos) {
    const auto first = whole(text.substr(0, colon));
    const auto end = whole(text.substr(colon + 1));
    if (!first || !end) {
      why = quoted_value(text) + " is not two whole numbers A:B";
      return std::nullopt;
    }
    if (*end <= *first) {
      why = "the range " + quoted_value(text) + " holds no call (B must be above A)";
      return std::nullopt;
    }
    window.kind = TraceWindow::Kind::range;
    window.first = *first;
    window.end = *end;
    return window;
  }
  const auto count = whole(text);
  if (!count || *count == 0) {
    why = quoted_value(text) + " is not a whole number from 1, all, nor A:B";
    return std::nullopt;
  }
  window.count = *count;
  return window;
}

std::string trace_window_text(const TraceWindow& window) {
  switch (window.kind) {
    case TraceWindow::Kind::all:
      return "all";
    case TraceWindow::Kind::range:
      return std::to_string(window.first) + ":" + std::to_string(window.end);
    case TraceWindow::Kind::edges:
      break;
  }
  return std::to_string(window.count);
}

}  // namespace harmonize::config
