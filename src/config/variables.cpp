#include "config/variables.hpp"

#include <array>
#include <string>

#include "config/values.hpp"

namespace harmonize::config {
namespace {

constexpr double kDay = 86400.0;

// Defaults of the sync effort were tuned with bench-clock (docs/clock-sync.md).
constexpr std::array kVariables{
    Variable{"HARMONIZE_MODE", Kind::choice, "off", "off|observe|harmonize", 0, 0,
             "off: pure pass-through. observe: native barrier, exit times taken on the global "
             "clock (the A side). harmonize: harmonized barrier (the B side)"},
    Variable{"HARMONIZE_COMMS", Kind::choice, "all", "all|world", 0, 0,
             "which intracommunicators are affected"},
    Variable{
        "HARMONIZE_SLACK", Kind::duration_or_auto, "auto", "", 1e-9, 10.0,
        "initial slack between taking the deadline and the deadline; auto: twice the 90th "
        "percentile of the measured broadcast latency (at least 100ns); the slack then adapts, see "
        "docs/barrier.md"},
    Variable{"HARMONIZE_SLACK_GROWTH", Kind::number, "1.1", "", 1.0001, 100.0,
             "factor applied to the slack after a call in which a process missed its deadline; "
             "each successful call shrinks it by growth^(-1/249), so misses settle at ~0.4% of "
             "calls"},
    Variable{"HARMONIZE_SLACK_MIN", Kind::duration_or_auto, "auto", "", 1e-9, 10.0,
             "lower bound of the adaptive slack (auto: 100ns)"},
    Variable{"HARMONIZE_SLACK_MAX", Kind::duration_or_auto, "auto", "", 1e-9, 10.0,
             "upper bound of the adaptive slack (auto: 1000x the median broadcast latency, at "
             "least 10ms, at most 1s)"},
    Variable{"HARMONIZE_RESYNC_INTERVAL", Kind::duration, "1s", "", 1e-3, kDay,
             "clocks are resynchronized when the last sync is older than this (sooner during the "
             "first second: 10ms, 30ms, 90ms, ...), or after a missed deadline when the last sync "
             "is older than 100ms"},
    Variable{"HARMONIZE_SYNC", Kind::choice, "h2hca", "h2hca|hca3|h3hca", 0, 0,
             "clock synchronization scheme"},
    Variable{"HARMONIZE_CLOCK_MODEL", Kind::choice, "auto", "auto|offset|linear", 0, 0,
             "offset-only or offset+drift model (auto: the scheme's best)"},
    Variable{"HARMONIZE_OFFSET_ALG", Kind::choice, "skampi", "skampi|meanrtt", 0, 0,
             "clock offset estimation"},
    Variable{
        "HARMONIZE_FITPOINTS", Kind::integer, "8", "", 1, kMaxSyncPingpongs,
        "fit points per clock model (effort of the sync; fitpoints x pingpongs at most 10000)"},
    Variable{"HARMONIZE_PINGPONGS", Kind::integer, "10", "", 1, kMaxSyncPingpongs,
             "ping-pongs per fit point (effort of the sync; fitpoints x pingpongs at most 10000)"},
    Variable{"HARMONIZE_MINRTT_PATIENCE", Kind::integer, "0", "", 0, 100000,
             "stop a fit point's ping-pongs once the minimum RTT has not improved for this many "
             "exchanges (0: always do all)"},
    Variable{"HARMONIZE_TIMESOURCE", Kind::choice, "monotonic", "monotonic|tsc|wtime", 0, 0,
             "local time source"},
    Variable{"HARMONIZE_REPORT", Kind::report, "harmonize-%j.json", "", 0, 0,
             "report file written by rank 0 at MPI_Finalize (modes observe and harmonize); "
             "checked at MPI_Init: its directory must accept a new file (a device such as "
             "/dev/null or /dev/stdout is written as it is)"},
    Variable{"HARMONIZE_QUIET", Kind::flag, "0", "", 0, 1, "1: no summary line on stderr"},
    Variable{"HARMONIZE_VERBOSE", Kind::flag, "0", "", 0, 1,
             "1: print the effective configuration at MPI_Init and counters at MPI_Finalize "
             "(rank 0)"},
    Variable{"HARMONIZE_STARTUP_TIMEOUT", Kind::duration, "30s", "", 1.0, 3600.0,
             "how long MPI_Init waits for every rank to load the library before stopping the job "
             "(ranks launched without LD_PRELOAD)"},
    Variable{"HARMONIZE_CONFIG", Kind::text, "", "", 0, 0,
             "preset file of KEY=VALUE lines (a regular file of at most 1 MiB); the environment "
             "overrides it"},
    Variable{"HARMONIZE_TEST_CLOCK_OFFSET", Kind::duration, "0s", "", 0, 10.0,
             "testing: each (virtual) node's clock gets a known offset within +-this"},
    Variable{"HARMONIZE_TEST_CLOCK_DRIFT", Kind::ppm, "0ppm", "", 0, 10000,
             "testing: each (virtual) node's clock gets a known drift within +-this"},
    Variable{"HARMONIZE_TEST_CLOCK_SEED", Kind::integer, "1", "", 0, 4294967295.0,
             "testing: seed of the test clocks' offsets and drifts"},
    Variable{"HARMONIZE_TEST_NODE_SIZE", Kind::integer, "0", "", 0, 1 << 20,
             "testing: group ranks into virtual nodes of this many ranks sharing one clock "
             "(0: one rank per virtual node when test clocks are on)"},
};

constexpr std::array kScriptVariables{
    ScriptVariable{"HARMONIZE_LIBRARY",
                   "scripts/harmonize-run: the libharmonize.so to preload; the library accepts and "
                   "ignores it"},
};

}  // namespace

std::span<const Variable> all_variables() {
  return kVariables;
}

std::span<const ScriptVariable> script_variables() {
  return kScriptVariables;
}

bool is_script_variable(std::string_view name) {
  for (const ScriptVariable& variable : kScriptVariables) {
    if (variable.name == name) return true;
  }
  return false;
}

const Variable* find_variable(std::string_view name) {
  for (const Variable& variable : kVariables) {
    if (variable.name == name) return &variable;
  }
  return nullptr;
}

std::string accepted_values(const Variable& v) {
  switch (v.kind) {
    case Kind::choice: {
      std::string text = "one of ";
      for (char c : v.choices) text += (c == '|') ? std::string(", ") : std::string(1, c);
      return text;
    }
    case Kind::duration: {
      // The default is the most natural example, unless it is the zero "off".
      const std::string example = parse_duration(v.default_value).value_or(0) > 0
                                      ? std::string(v.default_value)
                                      : std::string("20us");
      return "a duration with unit ns, us, ms or s, from " + format_seconds(v.min) + " to " +
             format_seconds(v.max) + " (e.g. " + example + ")";
    }
    case Kind::duration_or_auto:
      return "'auto' or a duration with unit ns, us, ms or s, from " + format_seconds(v.min) +
             " to " + format_seconds(v.max) + " (e.g. 20us)";
    case Kind::number:
      return "a number from " + format_number(v.min) + " to " + format_number(v.max);
    case Kind::integer:
      return "a whole number from " + format_number(v.min) + " to " + format_number(v.max);
    case Kind::flag:
      return "0 or 1";
    case Kind::ppm:
      return "a drift with unit ppm, from 0ppm to " + format_number(v.max) + "ppm (e.g. 50ppm)";
    case Kind::text:
      return "any text";
    case Kind::report:
      return "'none' or a file name template (%j job id or pid of rank 0, %h host, %% percent)";
  }
  return "";
}

}  // namespace harmonize::config
