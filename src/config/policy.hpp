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
#include "common/named_enum.hpp"
#include "common/trace_window.hpp"
#include "config/interleave.hpp"

namespace harmonize::config {

#define HARMONIZE_MODES(X) X(off, "off") X(observe, "observe") X(harmonize, "harmonize")
HARMONIZE_NAMED_ENUM(Mode, HARMONIZE_MODES)

#define HARMONIZE_COMM_SCOPES(X) X(all, "all") X(world, "world")
HARMONIZE_NAMED_ENUM(CommScope, HARMONIZE_COMM_SCOPES)

// Testing: what reads one skewed clock. node: every (virtual) node (the
// shared-clock assumption holds); process: every process, while the nodes
// stay what the library finds (the assumption is broken on purpose).
#define HARMONIZE_TEST_CLOCK_SCOPES(X) X(node, "node") X(process, "process") X(host, "host")
HARMONIZE_NAMED_ENUM(TestClockScope, HARMONIZE_TEST_CLOCK_SCOPES)

// What MPI_Wtime returns: the MPI library's own clock, or the global clock.
#define HARMONIZE_WTIME_SCOPES(X) X(local, "local") X(global, "global")
HARMONIZE_NAMED_ENUM(WtimeScope, HARMONIZE_WTIME_SCOPES)

// What HARMONIZE_TRACE writes: Chrome/Perfetto JSON, an OTF2 archive, or both.
#define HARMONIZE_TRACE_FORMATS(X) X(json, "json") X(otf2, "otf2") X(both, "both")
HARMONIZE_NAMED_ENUM(TraceFormat, HARMONIZE_TRACE_FORMATS)

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
  CollectiveSet collectives{};      // timed in modes observe and harmonize
  ArrivalPattern arrival;           // mode harmonize; a file's delays read by build_policy
  bool alternate{};                 // mode harmonize: every second barrier native, timed
  InterleaveSides interleave;       // mode harmonize: the sides alternated barrier by barrier
  int interleave_run{};             // barriers of one side in a row
  std::uint64_t interleave_seed{};  // 0: drawn at MPI_Init
  WtimeScope wtime{};               // modes observe and harmonize: MPI_Wtime on the global clock
  std::string trace;                // timeline file template; "none": no timeline
  TraceWindow trace_window;         // which calls of each communicator it keeps
  TraceFormat trace_format{};       // and in which format(s)

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

// The names of the sync and clock layers' enums, as the variables spell them.
using choices::to_string;

}  // namespace harmonize::config
