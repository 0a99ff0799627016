#include "config/policy.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "common/fnv1a.hpp"
#include "config/arrival.hpp"
#include "config/collective_set.hpp"
#include "config/display.hpp"
#include "config/kinds.hpp"
#include "config/preset.hpp"
#include "config/suggest.hpp"
#include "config/values.hpp"
#include "config/variables.hpp"

namespace harmonize::config {
namespace {

constexpr std::string_view kPrefix = "HARMONIZE_";

// NAME='value' for messages, both made safe for one terminal line.
std::string quoted(const std::string& name, const std::string& value) {
  return display_value(name) + "='" + display_value(value) + "'";
}

// Only validated values ever reach `effective`, so every store succeeds.
void fill_policy(PolicyResult& result) {
  for (const Variable& variable : all_variables()) {
    if (variable.store != nullptr)
      variable.store(result.policy, result.effective.at(std::string(variable.name)));
  }
}

// Checks that need more than one variable.
void check_combinations(PolicyResult& result) {
  const Policy& p = result.policy;
  auto shown = [&](const char* name) { return quoted(name, result.effective[name]); };
  if (p.slack_min && p.slack_max && *p.slack_min > *p.slack_max) {
    result.errors.push_back(shown("HARMONIZE_SLACK_MIN") + " is larger than " +
                            shown("HARMONIZE_SLACK_MAX") + ": expected MIN <= MAX");
  }
  if (p.slack &&
      ((p.slack_min && *p.slack < *p.slack_min) || (p.slack_max && *p.slack > *p.slack_max))) {
    result.errors.push_back(shown("HARMONIZE_SLACK") +
                            " is outside [HARMONIZE_SLACK_MIN, HARMONIZE_SLACK_MAX]: expected a "
                            "slack within its bounds");
  }
  if (p.arrival.kind != ArrivalKind::none && p.mode != Mode::harmonize) {
    result.errors.push_back(shown("HARMONIZE_ARRIVAL") +
                            " needs HARMONIZE_MODE=harmonize: only a harmonized barrier leaves "
                            "at a known instant to delay from (the mode is " +
                            result.effective["HARMONIZE_MODE"] + ")");
  }
  if (p.alternate && p.mode != Mode::harmonize) {
    result.errors.push_back(shown("HARMONIZE_ALTERNATE") +
                            " needs HARMONIZE_MODE=harmonize: it alternates harmonized and native "
                            "barriers (the mode is " +
                            result.effective["HARMONIZE_MODE"] + ")");
  }
  if (!p.interleave.sides.empty() && p.mode != Mode::harmonize) {
    result.errors.push_back(shown("HARMONIZE_INTERLEAVE") +
                            " needs HARMONIZE_MODE=harmonize: its sides switch the barrier "
                            "between native and harmonized, on the clock mode harmonize builds "
                            "(the mode is " +
                            result.effective["HARMONIZE_MODE"] + ")");
  }
  if (!p.interleave.sides.empty() && p.alternate) {
    result.errors.push_back(shown("HARMONIZE_INTERLEAVE") + " and " + shown("HARMONIZE_ALTERNATE") +
                            " both choose how each barrier runs: set one of them");
  }
  if (!p.interleave.sides.empty() && p.collectives == kNoCollectives) {
    result.errors.push_back(shown("HARMONIZE_INTERLEAVE") +
                            " compares the timed collectives after each side's barriers: "
                            "HARMONIZE_COLLECTIVES=none times none");
  }
  if (p.trace != "none" && p.mode == Mode::off) {
    result.errors.push_back(shown("HARMONIZE_TRACE") +
                            " needs HARMONIZE_MODE observe or harmonize: mode off measures "
                            "nothing to draw (the mode is " +
                            result.effective["HARMONIZE_MODE"] + ")");
  }
#ifndef HARMONIZE_HAVE_OTF2
  if (p.trace_format != TraceFormat::json) {
    result.errors.push_back(shown("HARMONIZE_TRACE_FORMAT") +
                            ": this build of harmonize has no OTF2 (built without Debian's "
                            "libopen-trace-format2-dev); expected json");
  }
#endif
  if (p.wtime == WtimeScope::global && p.mode == Mode::off) {
    result.errors.push_back(shown("HARMONIZE_WTIME") +
                            " needs HARMONIZE_MODE observe or harmonize: mode off builds no "
                            "global clock (the mode is " +
                            result.effective["HARMONIZE_MODE"] + ")");
  }
  if (p.test_clock_scope == TestClockScope::host && p.test_node_size > 0) {
    result.errors.push_back(shown("HARMONIZE_TEST_CLOCK_SCOPE") + " contradicts " +
                            shown("HARMONIZE_TEST_NODE_SIZE") +
                            ": host clocks follow the nodes MPI finds, virtual nodes replace "
                            "them; expected one of the two");
  }
  if (p.test_clock_scope == TestClockScope::host && p.test_clock_active() && p.mode == Mode::off) {
    result.errors.push_back(shown("HARMONIZE_TEST_CLOCK_SCOPE") +
                            " needs HARMONIZE_MODE observe or harmonize: mode off makes no "
                            "communicator to find the hosts on (the mode is " +
                            result.effective["HARMONIZE_MODE"] + ")");
  }
  // Each is at most kMaxSyncPingpongs, so the product cannot overflow.
  const long long pingpongs = static_cast<long long>(p.fitpoints) * p.pingpongs;
  if (pingpongs > kMaxSyncPingpongs) {
    const std::string bound = std::to_string(kMaxSyncPingpongs);
    result.errors.push_back(shown("HARMONIZE_FITPOINTS") + " x " + shown("HARMONIZE_PINGPONGS") +
                            " is not valid: " + std::to_string(pingpongs) +
                            " ping-pongs per pair in each sync round, expected at most " + bound +
                            " (at 20-60us a ping-pong, a round of " + bound + " takes 0.2-0.6s)");
  }
}

void apply(PolicyResult& result, const std::string& name, const std::string& raw_value,
           const std::string& origin, const std::string& where) {
  const Variable* variable = find_variable(name);
  if (variable == nullptr && is_script_variable(name)) {
    // Forwarded by launchers that hand on the whole environment: ignored.
    if (origin == "environment") return;
    result.errors.push_back(where + quoted(name, raw_value) +
                            " is read by the scripts (harmonize-run) from the environment; a "
                            "preset cannot set it");
    return;
  }
  if (const std::string_view retired = retirement_of(name); !retired.empty()) {
    result.errors.push_back(where + quoted(name, raw_value) +
                            " is no longer read: " + std::string(retired));
    return;
  }
  if (variable == nullptr) {
    std::string line = where + "unknown variable " + quoted(name, raw_value);
    const std::string suggestion = closest_variable(name);
    line +=
        suggestion.empty() ? "; see the README for the list" : "; did you mean " + suggestion + "?";
    result.errors.push_back(line);
    return;
  }
  // Blanks around a value are never meant (a preset line is trimmed the same
  // way), whatever its kind; the message shows the value as given.
  const std::string value(trim(raw_value));
  if (std::string problem = value_problem(*variable, value); !problem.empty()) {
    result.errors.push_back(where + quoted(name, raw_value) + problem);
    return;
  }
  result.effective[name] = value;
  result.origin[name] = origin;
}

// The delays' bits hashed, in hex.
std::string digest_of(const std::vector<double>& values) {
  const std::uint64_t hash = fnv1a(std::string_view(reinterpret_cast<const char*>(values.data()),
                                                    values.size() * sizeof(double)));
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// A file pattern's delays, read where the preset is (the same reader).
void read_arrival_file(PolicyResult& result, const FileReader& read_file) {
  ArrivalPattern& arrival = result.policy.arrival;
  if (arrival.kind != ArrivalKind::file) return;
  const std::string where = quoted("HARMONIZE_ARRIVAL", result.effective["HARMONIZE_ARRIVAL"]);
  std::string why;
  const std::optional<std::string> text = read_file(arrival.path, why);
  if (!text) {
    result.errors.push_back(where + ": the delay file cannot be read: " + why);
    return;
  }
  if (auto delays = parse_delay_list(*text, why)) {
    arrival.per_rank = std::move(*delays);
    // The ranks compare canonical texts: files of one path but different
    // delays (node-local copies) must not agree.
    result.canonical["HARMONIZE_ARRIVAL"] += "#" + digest_of(arrival.per_rank);
  } else {
    result.errors.push_back(where + ": the delay file is not valid: " + why);
  }
}

}  // namespace

PolicyResult build_policy(const Environment& environment, const FileReader& read_file) {
  PolicyResult result;
  for (const Variable& variable : all_variables()) {
    result.effective[std::string(variable.name)] = std::string(variable.default_value);
    result.origin[std::string(variable.name)] = "default";
  }

  // The preset first, so that the environment overrides it.
  if (auto it = environment.find("HARMONIZE_CONFIG");
      it != environment.end() && !trim(it->second).empty()) {
    const std::string path(trim(it->second));
    std::string why;
    if (auto text = read_file(path, why)) {
      const Preset preset = parse_preset(*text);
      const std::string where = "HARMONIZE_CONFIG=" + display_value(path) + ": ";
      for (const std::string& error : preset.errors) result.errors.push_back(where + error);
      for (const PresetEntry& entry : preset.entries) {
        const std::string line_where = where + "line " + std::to_string(entry.line) + ": ";
        if (entry.key == "HARMONIZE_CONFIG") {
          result.errors.push_back(line_where + "a preset cannot load another preset");
          continue;
        }
        apply(result, entry.key, entry.value, "preset " + path, line_where);
      }
    } else {
      result.errors.push_back(quoted("HARMONIZE_CONFIG", path) + " cannot be read: " + why);
    }
  }

  for (const auto& [name, value] : environment) {
    if (name.compare(0, kPrefix.size(), kPrefix) != 0) continue;
    apply(result, name, value, "environment", "");
  }

  // Only validated values ever reach `effective`, so every one parses.
  for (const Variable& variable : all_variables()) {
    const std::string name(variable.name);
    result.canonical[name] = canonical_value(variable, result.effective[name]);
  }
  // Filled even when a value was refused (that variable keeps its default):
  // MPI_Init still reads the start-up timeout to stop the job in step.
  fill_policy(result);
  if (result.ok()) check_combinations(result);
  if (result.ok()) read_arrival_file(result, read_file);
  return result;
}

}  // namespace harmonize::config
