#pragma once
// The typed, validated policy the library runs with. Building it is pure
// (environment and file reader are inputs) so every kind of bad input is unit
// tested; load_policy_from_environment() is the thin impure entry point.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace harmonize::config {

enum class Mode { off, observe, harmonize };
enum class CommScope { all, world };
enum class SyncScheme { h2hca, hca3, h3hca };
enum class ClockModel { automatic, offset, linear };
enum class OffsetAlgorithm { skampi, meanrtt };
enum class TimeSourceKind { monotonic, tsc, wtime };

struct Policy {
  Mode mode = Mode::off;
  CommScope comms = CommScope::all;
  std::optional<double> slack;  // seconds; nullopt: auto
  double slack_growth = 1.1;
  std::optional<double> slack_min;  // nullopt: derived
  std::optional<double> slack_max;  // nullopt: derived
  double resync_interval = 1.0;
  SyncScheme sync = SyncScheme::h2hca;
  ClockModel clock_model = ClockModel::automatic;
  OffsetAlgorithm offset_algorithm = OffsetAlgorithm::skampi;
  int fitpoints = 0;
  int pingpongs = 0;
  int minrtt_patience = 0;
  TimeSourceKind time_source = TimeSourceKind::monotonic;
  std::string report;  // template; "none" disables the file
  bool quiet = false;
  bool verbose = false;
  double startup_timeout = 30.0;  // seconds MPI_Init waits for every rank to load the library
  double test_clock_offset = 0;   // seconds, bound of |offset|
  double test_clock_drift = 0;    // fraction (50 ppm = 5e-5), bound of |drift|
  std::uint64_t test_clock_seed = 1;
  int test_node_size = 0;

  bool test_clock_active() const { return test_clock_offset > 0 || test_clock_drift > 0; }
  bool needs_clock() const { return mode != Mode::off; }
};

struct PolicyResult {
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
PolicyResult load_policy_from_environment(bool writes_report = true);

// Names of the enums, as the variables spell them.
const char* to_string(Mode mode);
const char* to_string(SyncScheme scheme);
const char* to_string(ClockModel model);
const char* to_string(OffsetAlgorithm algorithm);
const char* to_string(TimeSourceKind kind);

}  // namespace harmonize::config
