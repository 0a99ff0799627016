#include "config/arrival.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "config/display.hpp"
#include "config/values.hpp"

namespace harmonize::config {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const std::size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// `text` as a message shows it: a pattern or a delay file may hold escape
// sequences, binary bytes or invisible characters, which must neither act on
// the terminal nor hide (the README's promise for every value in a message).
std::optional<double> delay_of(std::string_view text, std::string_view what, std::string& why) {
  const std::optional<double> seconds = parse_duration(text);
  if (!seconds || *seconds < 0 || *seconds > kMaxArrivalDelay) {
    why = std::string(what) + " " + quoted_value(text) +
          " is not a duration with unit ns, us, ms or s from 0 to 10s";
    return std::nullopt;
  }
  // Nothing times a process finer than a nanosecond, and a sub-nanosecond
  // delay would only be spelled back as 1.0000000000000001e-15s: a typo
  // ("1e-9us" for "1ns") is said, not silently run as no delay at all.
  if (*seconds > 0 && *seconds < kMinArrivalDelay) {
    why = std::string(what) + " " + quoted_value(text) +
          " is below 1ns: a delay is 0 or from 1ns to 10s";
    return std::nullopt;
  }
  return seconds;
}

// Ranks are ints in MPI; the range said in full, so that a number too large
// is not mistaken for a malformed one.
std::optional<int> rank_of(std::string_view text, std::string_view what, std::string& why) {
  const std::optional<std::int64_t> rank = parse_integer(text);
  if (!rank || *rank < 0 || *rank > std::numeric_limits<int>::max()) {
    why = std::string(what) + " " + quoted_value(text) + " is not a whole number from 0 to " +
          std::to_string(std::numeric_limits<int>::max());
    return std::nullopt;
  }
  return static_cast<int>(*rank);
}

// A spelling that parses back to exactly `seconds` (a pattern's canonical
// text is what the ranks compare: "1.23457ms" would let 1234567ns and
// 1234568ns agree), in the unit that makes it a whole number, or shortest.
// `seconds * per_second` may miss the number the user wrote by an ulp or two
// (the parser divided it), so its neighbours are tried too: every duration
// a user can write (1ns and up) comes back in its own unit, never as
// "1.0000000000000001e-06s".
std::string exact_duration(double seconds) {
  if (seconds == 0) return "0ns";  // as format_seconds spells it elsewhere
  std::string best;
  // Whole numbers first ("500us", not "0.5ms"), then the shortest.
  const auto rank = [](const std::string& t) {
    return std::pair(t.find('.') != std::string::npos, t.size());
  };
  for (const auto& [unit, per_second] :
       {std::pair{"s", 1.0}, {"ms", 1e3}, {"us", 1e6}, {"ns", 1e9}}) {
    double number = seconds * per_second;
    for (int step = 0; step < 4; ++step) number = std::nextafter(number, 0.0);
    for (int step = 0; step < 9; ++step, number = std::nextafter(number, HUGE_VAL)) {
      char digits[64];
      const auto [end, error] = std::to_chars(digits, digits + sizeof digits, number);
      if (error != std::errc()) continue;
      const std::string text = std::string(digits, end) + unit;
      if (text.find('e') != std::string::npos || parse_duration(text) != seconds) continue;
      if (best.empty() || rank(text) < rank(best)) best = text;
    }
  }
  if (!best.empty()) return best;
  char digits[64];
  std::snprintf(digits, sizeof digits, "%.17gs", seconds);  // exact, if not pretty
  return digits;
}

bool arity(const std::vector<std::string_view>& parts, std::size_t low, std::size_t high,
           std::string_view form, std::string& why) {
  if (parts.size() >= low && parts.size() <= high) return true;
  why = "expected " + std::string(form);
  return false;
}

}  // namespace

std::optional<ArrivalPattern> parse_arrival(std::string_view text, std::string& why) {
  text = trim(text);
  ArrivalPattern pattern;
  if (text == "none") return pattern;
  // A path may hold colons: everything after "file:" is the path.
  if (text.substr(0, 5) == "file:") {
    pattern.kind = ArrivalKind::file;
    pattern.path = std::string(trim(text.substr(5)));
    if (pattern.path.empty()) {
      why = "file: needs the path of the delay file";
      return std::nullopt;
    }
    return pattern;
  }
  const std::vector<std::string_view> parts = split(text, ':');
  const std::string_view kind = parts[0];
  if (kind == "rank" || kind == "node") {
    if (!arity(parts, 3, 3, kind == "rank" ? "rank:R:DELAY" : "node:N:DELAY", why))
      return std::nullopt;
    pattern.kind = kind == "rank" ? ArrivalKind::rank : ArrivalKind::node;
    const auto late = rank_of(parts[1], kind == "rank" ? "rank" : "node", why);
    const auto delay = late ? delay_of(parts[2], "delay", why) : std::nullopt;
    if (!delay) return std::nullopt;
    pattern.late = {*late};
    pattern.delay = *delay;
    return pattern;
  }
  if (kind == "ranks") {
    if (!arity(parts, 3, 3, "ranks:R1,R2,...:DELAY", why)) return std::nullopt;
    pattern.kind = ArrivalKind::ranks;
    for (const std::string_view item : split(parts[1], ',')) {
      const auto late = rank_of(trim(item), "rank", why);
      if (!late) return std::nullopt;
      pattern.late.push_back(*late);
    }
    std::sort(pattern.late.begin(), pattern.late.end());
    pattern.late.erase(std::unique(pattern.late.begin(), pattern.late.end()), pattern.late.end());
    const auto delay = delay_of(parts[2], "delay", why);
    if (!delay) return std::nullopt;
    pattern.delay = *delay;
    return pattern;
  }
  if (kind == "linear" || kind == "random") {
    const bool random = kind == "random";
    if (!arity(parts, 2, random ? 3 : 2, random ? "random:MAX[:SEED]" : "linear:MAX", why))
      return std::nullopt;
    pattern.kind = random ? ArrivalKind::random : ArrivalKind::linear;
    const auto delay = delay_of(parts[1], "MAX", why);
    if (!delay) return std::nullopt;
    pattern.delay = *delay;
    if (parts.size() == 3) {
      const std::optional<std::int64_t> seed = parse_integer(parts[2]);
      if (!seed || *seed < 0) {
        why = "seed " + quoted_value(parts[2]) + " is not a whole number from 0 to " +
              std::to_string(std::numeric_limits<std::int64_t>::max());
        return std::nullopt;
      }
      pattern.seed = static_cast<std::uint64_t>(*seed);
    }
    return pattern;
  }
  why = "unknown pattern " + quoted_value(kind);
  return std::nullopt;
}

std::string arrival_text(const ArrivalPattern& pattern) {
  const auto delay = [&] { return exact_duration(pattern.delay); };
  switch (pattern.kind) {
    case ArrivalKind::none:
      return "none";
    case ArrivalKind::rank:
    case ArrivalKind::node:
      return std::string(pattern.kind == ArrivalKind::rank ? "rank:" : "node:") +
             std::to_string(pattern.late.empty() ? 0 : pattern.late.front()) + ":" + delay();
    case ArrivalKind::ranks: {
      std::string ranks;
      for (const int rank : pattern.late)
        ranks += (ranks.empty() ? "" : ",") + std::to_string(rank);
      return "ranks:" + ranks + ":" + delay();
    }
    case ArrivalKind::linear:
      return "linear:" + delay();
    case ArrivalKind::random:
      return "random:" + delay() + ":" + std::to_string(pattern.seed);
    case ArrivalKind::file:
      return "file:" + pattern.path;
  }
  return "none";
}

std::optional<std::vector<double>> parse_delay_list(std::string_view text, std::string& why) {
  // A byte order mark, as some editors write it, marks the encoding and is
  // no part of the first delay (presets skip it too).
  if (text.rfind("\xef\xbb\xbf", 0) == 0) text.remove_prefix(3);
  std::vector<double> delays;
  int line_number = 0;
  for (std::string_view line : split(text, '\n')) {
    ++line_number;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    std::size_t at = 0;
    while (at < line.size()) {
      const std::size_t start = line.find_first_not_of(" \t\r", at);
      if (start == std::string_view::npos) break;
      const std::size_t end = std::min(line.find_first_of(" \t\r", start), line.size());
      const std::string place = "line " + std::to_string(line_number) + ": delay";
      const auto delay = delay_of(line.substr(start, end - start), place, why);
      if (!delay) return std::nullopt;
      delays.push_back(*delay);
      at = end;
    }
  }
  if (delays.empty()) {
    why = "no delay in it: expected one duration per rank (e.g. 0us 10us 0us 0us)";
    return std::nullopt;
  }
  return delays;
}

}  // namespace harmonize::config
