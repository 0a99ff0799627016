#pragma once
// The one table of HARMONIZE_* variables (variables.cpp). Each entry names a
// variable, its kind, its default, what it accepts and the Policy field it
// sets; parsing, validation, building the Policy (a loop over the table), the
// "did you mean" suggestion and the README table (harmonize-config
// --markdown) are derived from it. A new variable is one entry there plus the
// Policy field it sets (docs/config.md).
#include <span>
#include <string>
#include <string_view>

namespace harmonize::config {

struct Policy;  // config/policy.hpp

enum class Kind {
  choice,            // one of `choices`
  duration,          // number with ns/us/ms/s, within [min, max] seconds
  duration_or_auto,  // "auto" or a duration
  number,            // plain real number within [min, max]
  integer,           // whole number within [min, max]
  flag,              // 0 or 1
  ppm,               // number with the unit ppm, |value| within [min, max]
  percent,           // number with the unit %, within [min, max] percent
  text,              // free text (paths)
  report,            // "none" or a report file name template (not "" nor ending in '/')
  collectives,       // "all", "none" or a comma-separated list of collective names
  arrival,           // an arrival pattern (config/arrival.hpp)
  window,            // a trace window (config/trace_window.hpp)
  interleave,        // "none" or the sides of an interleaved comparison (config/interleave.hpp)
};

struct Variable {
  std::string_view name;
  Kind kind;
  std::string_view default_value;
  std::span<const std::string_view> choices;  // Kind::choice: the enum's names
  double min = 0;
  double max = 0;
  std::string_view help;
  // Writes a value that passed validation into the Policy field the variable
  // binds. Null only for HARMONIZE_CONFIG, which names the preset that
  // build_policy reads rather than a field.
  void (*store)(Policy& policy, std::string_view value) = nullptr;
};

std::span<const Variable> all_variables();
const Variable* find_variable(std::string_view name);

// Variables the scripts (scripts/harmonize-run) read for themselves. A
// launcher that forwards the whole environment (MPICH's Hydra, srun) hands
// them to the ranks too, so the library accepts and ignores them rather than
// stopping the job as "unknown". Kept in one place; a test greps scripts/.
struct ScriptVariable {
  std::string_view name;
  std::string_view help;
};
std::span<const ScriptVariable> script_variables();
bool is_script_variable(std::string_view name);

// Variables an earlier release read and this one does not: setting one stops
// the job with what replaced it (silently ignoring it would let a preset
// believe it still tunes something). Empty for any other name.
std::string_view retirement_of(std::string_view name);

// Bound of the sync effort HARMONIZE_FITPOINTS x HARMONIZE_PINGPONGS: the
// ping-pongs each pair exchanges per round of HCA3 (a sync has ceil(log2
// nodes) rounds, and a resync costs the same). At the 20-60 us a ping-pong
// takes over TCP, 10000 make a round of 0.2-0.6 s (up to twice that when
// stalled fit points are measured again): slow but finite, where 10^10 never
// ends. The tuned default (common/choices.hpp) is 8 x 10 = 80,
// config/precise.env 32 x 30 = 960.
inline constexpr long long kMaxSyncPingpongs = 10000;

}  // namespace harmonize::config
