#pragma once
// HARMONIZE_ARRIVAL's syntax (pure): the patterns of common/arrival_pattern.hpp
// as a user writes them, their canonical text, and the delay file's contents.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/arrival_pattern.hpp"

namespace harmonize::config {

// The longest delay a pattern may impose on one process, and the shortest
// non-zero one (the clocks read nanoseconds; below, a typo such as "1e-9us").
inline constexpr double kMaxArrivalDelay = 10.0;
inline constexpr double kMinArrivalDelay = 1e-9;

// "none", "rank:R:DELAY", "ranks:R1,R2,...:DELAY", "node:N:DELAY",
// "linear:MAX", "random:MAX[:SEED]" or "file:PATH"; delays are durations with
// a unit (ns, us, ms, s), 0 or from kMinArrivalDelay to kMaxArrivalDelay.
// nullopt with `why` (one clause, no trailing period, the user's text
// escaped and cut as display_value does) for anything else. A file pattern holds only
// its path here: build_policy reads the file.
std::optional<ArrivalPattern> parse_arrival(std::string_view text, std::string& why);

// What every spelling of one pattern becomes ("rank:0:10000ns" and
// "rank:0:10us" alike: "rank:0:10us"); ranks sorted, duplicates dropped.
std::string arrival_text(const ArrivalPattern& pattern);

// A delay file: one duration per rank, in rank order, separated by blanks or
// newlines; '#' starts a comment; a UTF-8 byte order mark at the start is
// skipped. nullopt with `why` (the bad entry escaped and cut) for a bad entry
// or an empty list.
std::optional<std::vector<double>> parse_delay_list(std::string_view text, std::string& why);

// What the variable accepts, for messages and the README.
inline constexpr std::string_view kArrivalSyntax =
    "none, rank:R:DELAY, ranks:R1,R2,...:DELAY, node:N:DELAY, linear:MAX, random:MAX[:SEED] or "
    "file:PATH (DELAY and MAX: durations with unit ns, us, ms or s, at most 10s; PATH: one "
    "delay per rank)";

}  // namespace harmonize::config
