#pragma once
// The typed, validated policy the library runs with. Building it is pure
// (environment and file reader are inputs) so every kind of bad input is unit
// tested; load_policy_from_environment() is the thin impure entry point.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/arrival_pattern.hpp"
#include "common/choices.hpp"
#include "common/collective_kind.hpp"
#include "common/trace_window.hpp"

namespace harmonize::config {

enum class Mode { off, observe, harmonize };
inline constexpr std::array<std::string_view, 3> kModeNames{"off", "observe", "harmonize"};
static_assert(static_cast<std::size_t>(Mode::harmonize) + 1 == kModeNames.size());

enum class CommScope { all, world };
inline constexpr std::array<std::string_view, 2> kCommScopeNames{"all", "world"};
static_assert(static_cast<std::size_t>(CommScope::world) + 1 == kCommScopeNames.size());

// Testing: what reads one skewed clock. node: every (virtual) node (the
// shared-clock assumption holds); process: every process, while the nodes
// stay what the library finds (the assumption is broken on purpose).
enum class TestClockScope { node, process, host };
inline constexpr std::array<std::string_view, 3> kTestClockScopeNames{"node", "process", "host"};
static_assert(static_cast<std::size_t>(TestClockScope::host) + 1 == kTestClockScopeNames.size());

// What MPI_Wtime returns: the MPI library's own clock, or the global clock.
enum class WtimeScope { local, global };
inline constexpr std::array<std::string_view, 2> kWtimeScopeNames{"local", "global"};
static_assert(static_cast<std::size_t>(WtimeScope::global) + 1 == kWtimeScopeNames.size());

// What HARMONIZE_TRACE writes: Chrome/Perfetto JSON, an OTF2 archive, or both.
enum class TraceFormat { json, otf2, both };
inline constexpr std::array<std::string_view, 3> kTraceFormatNames{"json", "otf2", "both"};
static_assert(static_cast<std::size_t>(TraceFormat::both) + 1 == kTraceFormatNames.size());

constexpr std::span<const std::string_view> names(Mode) {
  return kModeNames;
}
constexpr std::span<const std::string_view> names(CommScope) {
  return kCommScopeNames;
}
constexpr std::span<const std::string_view> names(TestClockScope) {
  return kTestClockScopeNames;
}
constexpr std::span<const std::string_view> names(WtimeScope) {
  return kWtimeScopeNames;
}
constexpr std::span<const std::string_view> names(TraceFormat) {
  return kTraceFormatNames;
}

// The choices the sync and clock layers take (one enum per concept).
using choices::ModelKind;
using choices::OffsetAlgorithm;
using choices::Scheme;
using choices::TimeSourceKind;

// Every field is written from its variable's entry in the table
// (variables.cpp), default included: the fields carry no defaults of their
// own, so a Policy{} is zeroed, not the default policy (that is
// build_policy() of an empty environment).
struct Policy {
  Mode mode{};
  CommScope comms{};
  std::optional<double> slack;      // seconds; nullopt: auto
  double miss_target{};             // fraction (0.5% = 0.005)
  std::optional<double> slack_min;  // nullopt: derived
  std::optional<double> slack_max;  // nullopt: derived
  double resync_interval{};         // seconds
  Scheme sync{};
  ModelKind clock_model{};
  OffsetAlgorithm offset_algorithm{};
  int fitpoints{};
  int pingpongs{};
  int minrtt_patience{};
  double path_asymmetry{};  // fraction of each fit point's proven half-width
  TimeSourceKind time_source{};
  std::string report;  // template; "none" disables the file
  bool quiet{};
  bool verbose{};
  double startup_timeout{};    // seconds MPI_Init waits for every rank to load the library
  double test_clock_offset{};  // seconds, bound of |offset|
  double test_clock_drift{};   // fraction (50 ppm = 5e-5), bound of |drift|
  std::uint64_t test_clock_seed{};
  TestClockScope test_clock_scope{};
  int test_node_size{};
  CollectiveSet collectives{};  // timed in modes observe and harmonize
  ArrivalPattern arrival;       // mode harmonize; a file's delays read by build_policy
  bool alternate{};             // mode harmonize: every second barrier native, timed
  WtimeScope wtime{};           // modes observe and harmonize: MPI_Wtime on the global clock
  std::string trace;            // timeline file template; "none": no timeline
  TraceWindow trace_window;     // which calls of each communicator it keeps
  TraceFormat trace_format{};   // and in which format(s)

  bool test_clock_active() const { return test_clock_offset > 0 || test_clock_drift > 0; }
  bool needs_clock() const { return mode != Mode::off; }
  bool operator==(const Policy&) const = default;
};

struct PolicyResult {
  // Every variable's value; one whose value was refused keeps its default
  // (MPI_Init reads HARMONIZE_STARTUP_TIMEOUT before it stops the job).
  Policy policy;
  // Effective value of every variable (after preset and environment), as text:
  // what the verbose output and the report show.
  std::map<std::string, std::string> effective;
  std::map<std::string, std::string> origin;  // "default", "preset", "environment"
  // Every variable's parsed value as text, equal for equal values however
  // spelled ("20us", "20000ns"): what the ranks compare with each other.
  std::map<std::string, std::string> canonical;
  // One complete line each (without the "harmonize: " prefix).
  std::vector<std::string> errors;
  bool ok() const { return errors.empty(); }
};

using Environment = std::map<std::string, std::string>;  // only HARMONIZE_* entries matter
using FileReader =
    std::function<std::optional<std::string>(const std::string& path, std::string& why)>;

PolicyResult build_policy(const Environment& environment, const FileReader& read_file);

// Reads environ and the preset file named by HARMONIZE_CONFIG (a regular
// file of at most 1 MiB), and checks that the report can be written.
// `writes_report`: this process is the one that writes the report (world
// rank 0), so it checks at once that HARMONIZE_REPORT can be written; the
// others cannot know (the directory may exist on rank 0's node only).
PolicyResult load_policy_from_environment(bool writes_report);

// Names of the enums, as the variables spell them.
const char* to_string(Mode mode);
const char* to_string(CommScope scope);
const char* to_string(TestClockScope scope);
const char* to_string(WtimeScope scope);
const char* to_string(TraceFormat format);
using choices::to_string;

}  // namespace harmonize::config
