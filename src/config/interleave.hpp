#pragma once
// HARMONIZE_INTERLEAVE's syntax (pure): the sides of a comparison run inside
// one run, alternated call by call (docs/interleave.md). The same side syntax
// as harmonize-ab's --side: NAME:KEY=VALUE[,KEY=VALUE...], with A and B
// predefined (MODE=observe, MODE=harmonize); sides are separated by ';' or
// blanks; as there, a comma inside a value (ARRIVAL=ranks:0,3:10us) stays in
// it. Only settings the library can switch at each barrier are accepted.
// A collective's algorithm (ALLREDUCE=recursive_doubling) is checked for its
// syntax here and against the MPI at MPI_Init (interleave/mpi/algorithm_switch).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/arrival_pattern.hpp"

namespace harmonize::config {

// What a side sets. The barrier: native (MODE=observe, harmonize-ab's side
// A) or harmonized (MODE=harmonize); a harmonized side's arrival pattern
// (ARRIVAL, HARMONIZE_ARRIVAL's syntax but a file; none: HARMONIZE_ARRIVAL's).
// A collective's algorithm as a side sets it: `operation` a timed collective's
// name (not a barrier: the barrier is the instrument), `value` the MPI's name
// for the algorithm or its number, lower case as written.
struct AlgorithmChoice {
  std::string operation;
  std::string value;
  bool operator==(const AlgorithmChoice&) const = default;
};

struct InterleaveSide {
  std::string name;
  bool harmonized = true;
  ArrivalPattern arrival;
  std::vector<AlgorithmChoice> algorithms;  // in the order written, one per operation
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
    "ARRIVAL (a pattern as HARMONIZE_ARRIVAL's, but a file; with MODE=harmonize) or a "
    "collective (ALLREDUCE=recursive_doubling: its algorithm, by the MPI's name or number); "
    "NAME: letters, digits, _ . -";

}  // namespace harmonize::config
