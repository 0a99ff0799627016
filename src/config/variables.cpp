#include "config/variables.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

#include "common/choices.hpp"
#include "config/arrival.hpp"
#include "config/collective_set.hpp"
#include "config/kinds.hpp"
#include "config/policy.hpp"
#include "config/values.hpp"

namespace harmonize::config {
namespace {

constexpr double kDay = 86400.0;

// How an entry binds its Policy field. Field is a pointer to a member of
// Policy; the static_asserts reject a kind that does not fit the field's type,
// so an entry cannot write (say) a duration into an int.
template <auto Field>
using FieldType = std::remove_cvref_t<decltype(std::declval<Policy&>().*Field)>;

// Writes a validated value (trimmed, in range) into the field, as its kind's
// row makes it (config/kinds.hpp).
template <Kind kind, auto Field>
void store(Policy& policy, std::string_view value) {
  policy.*Field = KindRow<kind>::template typed<FieldType<Field>>(value);
}

// A variable whose value is one of the names of its field's enum; the
// default is a value of that enum, its name is the table's default.
template <auto Field>
constexpr Variable choice(std::string_view name, FieldType<Field> default_value,
                          std::string_view help) {
  return Variable{name, Kind::choice, choices::name_of(default_value), names(default_value), 0,
                  0,    help,         &store<Kind::choice, Field>};
}

// Any other kind: the default as the user would write it, the range in
// seconds (durations), ppm (drifts) or plain numbers.
template <Kind kind, auto Field>
constexpr Variable value(std::string_view name, std::string_view default_value, double min,
                         double max, std::string_view help) {
  static_assert(kind != Kind::choice, "choice<Field>() takes the enum's default");
  return Variable{name, kind, default_value, {}, min, max, help, &store<kind, Field>};
}

// The decimal text of N, as a constant: the default of an integer variable
// stated by a named constant that other layers share.
template <long long N>
struct Decimal {
  static_assert(N >= 0);
  static constexpr std::array<char, 21> digits = [] {
    std::array<char, 21> text{};
    char reversed[20] = {};
    int count = 0;
    long long rest = N;
    do {
      reversed[count++] = static_cast<char>('0' + rest % 10);
      rest /= 10;
    } while (rest > 0);
    for (int i = 0; i < count; ++i) text[static_cast<std::size_t>(i)] = reversed[count - 1 - i];
    return text;
  }();
};
template <long long N>
constexpr std::string_view decimal{Decimal<N>::digits.data()};

using choices::kDefaultFitpoints;
using choices::kDefaultMinRttPatience;
using choices::kDefaultPingpongs;

// Every default is stated here and nowhere else: those of the variables that
// set sync::Settings are the tuned constants of common/choices.hpp, which
// sync::Settings{} starts from too (tuned with harmonize-clockcheck --sweep,
// docs/clock-sync.md).
constexpr std::array kVariables{
    choice<&Policy::mode>(
        "HARMONIZE_MODE", Mode::off,
        "off: pure pass-through. observe: native barrier, exit times taken on the global clock "
        "(the A side). harmonize: harmonized barrier (the B side)"),
    choice<&Policy::comms>("HARMONIZE_COMMS", CommScope::all,
                           "which intracommunicators are affected"),
    value<Kind::collectives, &Policy::collectives>(
        "HARMONIZE_COLLECTIVES", "all", 0, 0,
        "which collectives are timed on the global clock, a blocking call at entry and exit, a "
        "non-blocking one (the i names) from its start to the MPI_Wait/MPI_Test... that completes "
        "it (modes observe and harmonize; nothing in off; the barrier as the operation under "
        "test: in observe, and in harmonize with HARMONIZE_ALTERNATE): arrival skew, t_global, "
        "the local time and, non-blocking, the overlap per operation, size and root, see "
        "docs/collectives.md"),
    value<Kind::arrival, &Policy::arrival>(
        "HARMONIZE_ARRIVAL", "none", 0, 0,
        "mode harmonize: each process leaves the harmonized barrier at the deadline plus its "
        "delay d_r, imposing an arrival pattern on what follows (rank:R:DELAY delays rank R of "
        "each affected communicator, ranks:R1,R2:DELAY several, node:N:DELAY the processes of "
        "node N, linear:MAX d_r = r/(P-1) MAX, random:MAX[:SEED] uniform in [0, MAX) drawn "
        "anew each call, file:PATH one delay per rank); see docs/arrival.md"),
    value<Kind::flag, &Policy::alternate>(
        "HARMONIZE_ALTERNATE", "0", 0, 1,
        "mode harmonize, 1: every second MPI_Barrier of a communicator is the native barrier, "
        "timed as the collective under test (operation barrier) after the harmonized one "
        "before it, which imposes the arrival pattern: the barrier's own tolerance to late "
        "arrivals with osu_barrier or IMB Barrier (their averages then mix both kinds; read "
        "the report), see docs/arrival.md"),
    value<Kind::interleave, &Policy::interleave>(
        "HARMONIZE_INTERLEAVE", "none", 0, 0,
        "mode harmonize: the sides of a comparison inside one run, e.g. 'A B' (native barrier "
        "against harmonized): each MPI_Barrier of a communicator runs one side's barrier, "
        "chosen by a schedule every rank computes alike (randomised blocks, "
        "HARMONIZE_INTERLEAVE_RUN), and the first timed collective after it is that side's; "
        "the report's \"interleave\" pairs the sides block by block (the median difference of "
        "t_global and of the slowest member's time, each with a sign-test interval, 5% "
        "family-wise); see docs/interleave.md"),
    value<Kind::integer, &Policy::interleave_run>(
        "HARMONIZE_INTERLEAVE_RUN", "1", 1, 1024,
        "HARMONIZE_INTERLEAVE: barriers of one side in a row; a block is sides x run barriers "
        "in a random order of the sides"),
    value<Kind::integer, &Policy::interleave_seed>(
        "HARMONIZE_INTERLEAVE_SEED", "0", 0, 4294967295.0,
        "HARMONIZE_INTERLEAVE: the schedule's seed; 0: drawn by world rank 0 at MPI_Init (the "
        "report names it, to repeat a run's order)"),
    value<Kind::duration_or_auto, &Policy::slack>(
        "HARMONIZE_SLACK", "auto", 1e-9, 10.0,
        "initial slack between the last process entering and the deadline; auto: twice the 90th "
        "percentile of the needs measured before the first call (at most 10x their median or "
        "100us, at least 100ns); the slack is "
        "then chosen by cost after 16, 32, 64 and 128 calls and every 256 calls, see "
        "docs/barrier.md"),
    value<Kind::percent, &Policy::miss_target>(
        "HARMONIZE_MISS_TARGET", "0.25%", 0.1, 50.0,
        "miss budget: the largest share of harmonized calls the slack lets end with flag 0 "
        "(missed, or left late); the slack is the cheapest within it (the cost of a valid call, "
        "a flagged one being run again), unless keeping it would more than double that cost"),
    value<Kind::duration_or_auto, &Policy::slack_min>(
        "HARMONIZE_SLACK_MIN", "auto", 1e-9, 10.0,
        "lower bound of the adaptive slack (auto: 100ns)"),
    value<Kind::duration_or_auto, &Policy::slack_max>(
        "HARMONIZE_SLACK_MAX", "auto", 1e-9, 10.0,
        "upper bound of the adaptive slack (auto: 1000x the median measured need, at least "
        "10ms, at most 1s)"),
    value<Kind::duration, &Policy::resync_interval>(
        "HARMONIZE_RESYNC_INTERVAL", "1s", 1e-3, kDay,
        "clocks are resynchronized when the last sync is older than this (sooner during the "
        "first second: 10ms, 30ms, 90ms, ...), or after a process missed 3 deadlines in a row, "
        "by less than twice its clock's error bound, when the last sync is older than 100ms"),
    choice<&Policy::sync>("HARMONIZE_SYNC", choices::kDefaultScheme,
                          "clock synchronization scheme (docs/clock-sync.md); none: the clocks "
                          "are global already (PTP, a hardware clock), used as they are and "
                          "checked at MPI_Init, each resync and MPI_Finalize (Check-Global-Clock: "
                          "the measured disagreement is the error bound, a warning names ranks "
                          "beyond 1 us), see docs/global-clock.md"),
    choice<&Policy::clock_model>("HARMONIZE_CLOCK_MODEL", choices::kDefaultModelKind,
                                 "offset-only or offset+drift model (auto: the scheme's best)"),
    choice<&Policy::offset_algorithm>("HARMONIZE_OFFSET_ALG", choices::kDefaultOffsetAlgorithm,
                                      "clock offset estimation"),
    value<Kind::integer, &Policy::fitpoints>(
        "HARMONIZE_FITPOINTS", decimal<kDefaultFitpoints>, 1, kMaxSyncPingpongs,
        "fit points per clock model (effort of the sync; fitpoints x pingpongs at most 10000)"),
    value<Kind::integer, &Policy::pingpongs>(
        "HARMONIZE_PINGPONGS", decimal<kDefaultPingpongs>, 1, kMaxSyncPingpongs,
        "ping-pongs per fit point (effort of the sync; fitpoints x pingpongs at most 10000)"),
    value<Kind::integer, &Policy::minrtt_patience>(
        "HARMONIZE_MINRTT_PATIENCE", decimal<kDefaultMinRttPatience>, 0, 100000,
        "stop a fit point's ping-pongs once the minimum RTT has not improved for this many "
        "exchanges (0: always do all)"),
    value<Kind::percent, &Policy::path_asymmetry>(
        "HARMONIZE_PATH_ASYMMETRY", "10%", 0, 100,
        "what the likely clock-error bound (report: clock_error_likely) assumes of the paths: "
        "the share of each fit point's proven half-width (about half its fastest round trip) "
        "by which they may be asymmetric beyond what the scatter of the sync's exchanges shows "
        "(the proven bound assumes 100%); 10% is what held on the loaded shared-memory and TCP "
        "paths measured, less is for paths known symmetric and unloaded (harmonize-scale's "
        "simulated cluster: 0.5%); no effect on an oversubscribed node, where the likely bound "
        "is the proven one; see docs/clock-error.md"),
    choice<&Policy::time_source>("HARMONIZE_TIMESOURCE", choices::kDefaultTimeSource,
                                 "local time source"),
    choice<&Policy::wtime>(
        "HARMONIZE_WTIME", WtimeScope::local,
        "global (modes observe and harmonize): MPI_Wtime of the program (C and Fortran) returns "
        "the global clock, seconds on world rank 0's clock, and MPI_WTIME_IS_GLOBAL on "
        "MPI_COMM_WORLD reads 1; local: the MPI library's own, untouched; see "
        "docs/global-clock.md"),
    value<Kind::report, &Policy::report>(
        "HARMONIZE_REPORT", "harmonize-%j.json", 0, 0,
        "report file written by rank 0 at MPI_Finalize (modes observe and harmonize); checked at "
        "MPI_Init: its directory must accept a new file (a device such as /dev/null or "
        "/dev/stdout is written as it is)"),
    value<Kind::report, &Policy::trace>(
        "HARMONIZE_TRACE", "none", 0, 0,
        "timeline of the job on the global clock (modes observe and harmonize), Chrome/Perfetto "
        "trace-event JSON written by rank 0 at MPI_Finalize: every barrier and timed collective "
        "call per rank, misses, lates and syncs; checked at MPI_Init like HARMONIZE_REPORT; see "
        "docs/timeline.md"),
    choice<&Policy::trace_format>(
        "HARMONIZE_TRACE_FORMAT", TraceFormat::json,
        "json: HARMONIZE_TRACE is Chrome/Perfetto trace-event JSON; otf2: an OTF2 archive, the "
        "directory HARMONIZE_TRACE names (anchor traces.otf2), one location per rank on the "
        "global clock; both: the JSON, and the archive beside it (its name less .json, plus "
        "-otf2); otf2 needs a build with libopen-trace-format2-dev"),
    value<Kind::window, &Policy::trace_window>(
        "HARMONIZE_TRACE_WINDOW", "1000", 0, 0,
        "which calls of each communicator the timeline keeps (the others are counted)"),
    value<Kind::flag, &Policy::quiet>("HARMONIZE_QUIET", "0", 0, 1, "1: no summary line on stderr"),
    value<Kind::flag, &Policy::verbose>(
        "HARMONIZE_VERBOSE", "0", 0, 1,
        "1: print the effective configuration at MPI_Init and counters at MPI_Finalize (rank 0)"),
    value<Kind::duration, &Policy::startup_timeout>(
        "HARMONIZE_STARTUP_TIMEOUT", "30s", 1.0, 3600.0,
        "how long MPI_Init waits for every rank to load the library before stopping the job "
        "(ranks launched without LD_PRELOAD)"),
    // Read by build_policy itself (the preset), so it binds no field.
    Variable{"HARMONIZE_CONFIG",
             Kind::text,
             "",
             {},
             0,
             0,
             "preset file of KEY=VALUE lines (a regular file of at most 1 MiB); the environment "
             "overrides it"},
    value<Kind::duration, &Policy::test_clock_offset>(
        "HARMONIZE_TEST_CLOCK_OFFSET", "0s", 0, 10.0,
        "testing: each test clock (per node, host or process: HARMONIZE_TEST_CLOCK_SCOPE) gets a "
        "known offset within +-this"),
    value<Kind::ppm, &Policy::test_clock_drift>(
        "HARMONIZE_TEST_CLOCK_DRIFT", "0ppm", 0, 10000,
        "testing: each test clock (per node, host or process: HARMONIZE_TEST_CLOCK_SCOPE) gets a "
        "known drift within +-this"),
    value<Kind::integer, &Policy::test_clock_seed>(
        "HARMONIZE_TEST_CLOCK_SEED", "1", 0, 4294967295.0,
        "testing: seed of the test clocks' offsets and drifts"),
    choice<&Policy::test_clock_scope>(
        "HARMONIZE_TEST_CLOCK_SCOPE", TestClockScope::node,
        "testing: what reads one test clock. node: each (virtual) node; host: each shared-memory "
        "node MPI finds (a real machine, a network-namespace node, a simulated host), numbered "
        "by its lowest world rank; process: each process, while the nodes stay the "
        "shared-memory ones (or HARMONIZE_TEST_NODE_SIZE's): breaks the shared-clock assumption "
        "of h2hca/h3hca on purpose"),
    value<Kind::integer, &Policy::test_node_size>(
        "HARMONIZE_TEST_NODE_SIZE", "0", 0, 1 << 20,
        "testing: group ranks into virtual nodes of this many ranks sharing one clock (unless "
        "HARMONIZE_TEST_CLOCK_SCOPE=process) (0: one rank per virtual node when test clocks of "
        "scope node are on)"),
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

std::string_view retirement_of(std::string_view name) {
  if (name == "HARMONIZE_SLACK_GROWTH")
    return "the slack is no longer grown by a factor after a miss but chosen by cost from the "
           "measured needs of the calls; bound its misses with HARMONIZE_MISS_TARGET instead "
           "(docs/barrier.md)";
  return {};
}

const Variable* find_variable(std::string_view name) {
  for (const Variable& variable : kVariables) {
    if (variable.name == name) return &variable;
  }
  return nullptr;
}

}  // namespace harmonize::config
