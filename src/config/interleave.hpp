#pragma once
// HARMONIZE_INTERLEAVE's syntax (pure): the sides of a comparison run inside
// one run, alternated call by call (docs/interleave.md). The same side syntax
// as harmonize-ab's --side: NAME:KEY=VALUE[,KEY=VALUE...], with A and B
// predefined (MODE=observe, MODE=harmonize); sides are separated by ';' or
// blanks; as there, a comma inside a value (ARRIVAL=ranks:0,3:10us) stays in
// it. Only settings the library can switch at each barrier are accepted.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/arrival_pattern.hpp"

namespace harmonize::config {

// What a side sets. The barrier: native (MODE=observe, harmonize-ab's side
// A) or harmonized (MODE=harmonize); a harmonized side's arrival pattern
// (ARRIVAL, HARMONIZE_ARRIVAL's syntax but a file; none: HARMONIZE_ARRIVAL's).
struct InterleaveSide {
  std::string name;
  bool harmonized = true;
  ArrivalPattern arrival;
  bool operator==(const InterleaveSide&) const = default;
};

struct InterleaveSides {
  std::vector<InterleaveSide> sides;  // empty: no interleaving
  bool operator==(const InterleaveSides&) const = default;
};

inline constexpr std::size_t kMaxInterleaveSides = 8;

// "none" or two to kMaxInterleaveSides sides with distinct names; nullopt with
// `why` (one clause, the user's text escaped and cut) for anything else.
std::optional<InterleaveSides> parse_interleave(std::string_view text, std::string& why);

// One side as the canonical text names it ("late:MODE=harmonize,ARRIVAL=rank:0:10us").
std::string side_text(const InterleaveSide& side);

// Every spelling of one set of sides alike ("A B" and "A;B:mode=harmonize"
// both "A:MODE=observe;B:MODE=harmonize"): what the ranks compare.
std::string interleave_text(const InterleaveSides& sides);

inline constexpr std::string_view kInterleaveSyntax =
    "none, or two to eight sides separated by ';' or blanks, each A (MODE=observe), B "
    "(MODE=harmonize) or NAME:KEY=VALUE[,KEY=VALUE], KEY MODE (observe or harmonize) or "
    "ARRIVAL (a pattern as HARMONIZE_ARRIVAL's, but a file; with MODE=harmonize); NAME: "
    "letters, digits, _ . -";

}  // namespace harmonize::config
