#include "config/interleave.hpp"

#include <algorithm>
#include <cctype>

#include "common/collective_kind.hpp"
#include "common/letter_case.hpp"
#include "config/arrival.hpp"
#include "config/display.hpp"

namespace harmonize::config {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == ';';
}

bool valid_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

// The collective whose algorithm KEY names (ALLREDUCE: "allreduce"); none for
// a barrier, which is the instrument, and for anything else.
std::optional<std::string> algorithm_operation(const std::string& key) {
  const std::string name = lower_case(key);
  if (name == "barrier" || name == "ibarrier") return std::nullopt;
  for (const std::string_view known : kCollectiveNames)
    if (known == name) return name;
  return std::nullopt;
}

bool valid_algorithm(std::string_view value) {
  return !value.empty() && value.size() <= 64 &&
         std::all_of(value.begin(), value.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// One KEY=VALUE of a side; harmonize-ab's keys, the HARMONIZE_ prefix optional.
bool apply_setting(std::string_view item, InterleaveSide& side, std::string& why) {
  const std::size_t eq = item.find('=');
  if (eq == std::string_view::npos) {
    why = "side '" + side.name + "': " + quoted_value(item) + " is not KEY=VALUE";
    return false;
  }
  std::string key = upper_case(item.substr(0, eq));
  if (key.rfind("HARMONIZE_", 0) == 0) key.erase(0, 10);
  const std::string_view value = item.substr(eq + 1);
  if (key == "MODE") {
    if (value != "observe" && value != "harmonize") {
      why = "side '" + side.name + "': MODE=" + display_value(value) +
            " cannot be interleaved: the barrier of a side is observe (native) or harmonize";
      return false;
    }
    side.harmonized = value == "harmonize";
    return true;
  }
  if (key == "ARRIVAL") {
    std::string problem;
    const std::optional<ArrivalPattern> pattern = parse_arrival(value, problem);
    if (!pattern || pattern->kind == ArrivalKind::file) {
      why = "side '" + side.name + "': ARRIVAL " +
            (pattern ? "cannot be a file (read for HARMONIZE_ARRIVAL only)"
                     : "is not valid: " + problem);
      return false;
    }
    side.arrival = *pattern;
    return true;
  }
  if (const std::optional<std::string> operation = algorithm_operation(key)) {
    if (!valid_algorithm(value)) {
      why = "side '" + side.name + "': " + key + "=" + display_value(value) +
            " is not an algorithm's name or number (letters, digits, _)";
      return false;
    }
    for (const AlgorithmChoice& earlier : side.algorithms) {
      if (earlier.operation == *operation) {
        why = "side '" + side.name + "' sets " + key + " twice";
        return false;
      }
    }
    side.algorithms.push_back({*operation, lower_case(value)});
    return true;
  }
  why = "side '" + side.name + "': " + quoted_value(key) +
        " cannot be switched per call (a side sets MODE, ARRIVAL and a collective's algorithm, "
        "docs/interleave.md): compare it between runs with harmonize-ab --side";
  return false;
}

// Where the next setting starts after `at`: a comma followed by KEY=, as
// harmonize-ab's sides split (ARRIVAL=ranks:0,3:10us keeps its comma).
std::size_t next_setting(std::string_view text) {
  for (std::size_t at = text.find(','); at != std::string_view::npos; at = text.find(',', at + 1)) {
    std::size_t end = at + 1;
    if (end < text.size() &&
        (std::isalpha(static_cast<unsigned char>(text[end])) || text[end] == '_')) {
      while (end < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_'))
        ++end;
      if (end < text.size() && text[end] == '=') return at;
    }
  }
  return std::string_view::npos;
}

std::optional<InterleaveSide> parse_side(std::string_view text, std::string& why) {
  const std::size_t colon = text.find(':');
  InterleaveSide side;
  side.name = std::string(text.substr(0, colon));
  if (!valid_name(side.name)) {
    why = "side " + quoted_value(text) + " has no valid NAME (letters, digits, _ . -)";
    return std::nullopt;
  }
  if (colon == std::string_view::npos) {
    if (side.name != "A" && side.name != "B") {
      why = "side " + quoted_value(text) + " sets nothing: only A and B are predefined, write " +
            side.name + ":MODE=...";
      return std::nullopt;
    }
    side.harmonized = side.name == "B";
    return side;
  }
  std::string_view rest = text.substr(colon + 1);
  if (rest.empty()) {
    why = "side " + quoted_value(text) + " sets nothing after ':'";
    return std::nullopt;
  }
  side.harmonized = side.name != "A";  // a predefined side's mode, unless set
  while (true) {
    const std::size_t comma = next_setting(rest);
    if (!apply_setting(rest.substr(0, comma), side, why)) return std::nullopt;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (side.arrival.kind != ArrivalKind::none && !side.harmonized) {
    why = "side '" + side.name +
          "': ARRIVAL needs MODE=harmonize: only a harmonized barrier leaves at a known instant "
          "to delay from";
    return std::nullopt;
  }
  return side;
}

}  // namespace

std::optional<InterleaveSides> parse_interleave(std::string_view text, std::string& why) {
  InterleaveSides result;
  if (text == "none") return result;
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && is_blank(text[at])) ++at;
    std::size_t end = at;
    while (end < text.size() && !is_blank(text[end])) ++end;
    if (end == at) break;
    const auto side = parse_side(text.substr(at, end - at), why);
    if (!side) return std::nullopt;
    for (const InterleaveSide& other : result.sides) {
      if (other.name == side->name) {
        why = "side '" + side->name + "' is named twice";
        return std::nullopt;
      }
    }
    result.sides.push_back(*side);
    at = end;
  }
  if (result.sides.size() < 2 || result.sides.size() > kMaxInterleaveSides) {
    why = quoted_value(text) + " names " + std::to_string(result.sides.size()) +
          " side(s): a comparison needs two to eight";
    return std::nullopt;
  }
  return result;
}

std::string side_text(const InterleaveSide& side) {
  std::string text = side.name + ":MODE=" + (side.harmonized ? "harmonize" : "observe");
  if (side.arrival.kind != ArrivalKind::none) text += ",ARRIVAL=" + arrival_text(side.arrival);
  for (const AlgorithmChoice& choice : side.algorithms)
    text += "," + upper_case(choice.operation) + "=" + choice.value;
  return text;
}

std::string interleave_text(const InterleaveSides& sides) {
  if (sides.sides.empty()) return "none";
  std::string text;
  for (const InterleaveSide& side : sides.sides) {
    if (!text.empty()) text += ';';
    text += side_text(side);
  }
  return text;
}

}  // namespace harmonize::config
