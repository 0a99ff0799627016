#pragma once
// What rank 0 knows at MPI_Finalize, in the shape of the JSON report
// (docs/report.md documents each field and its unit): everything the file
// says, rendered by render_report() alone.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/comm_stats.hpp"

namespace harmonize::report {

struct JobInfo {
  std::string id;  // scheduler job id, or the pid of rank 0
  int ranks = 0;
  // The nodes as the library counts them, for the sync and HARMONIZE_ARRIVAL's
  // node:N alike: the shared-memory nodes, or the virtual nodes of the test
  // clocks (HARMONIZE_TEST_NODE_SIZE); `hosts` are the distinct host names.
  int nodes = 0;
  std::vector<std::string> hosts;
  std::string mpi_library;  // MPI_Get_library_version, first line
  std::string program;
  std::string started;   // ISO-8601 UTC, see iso8601_utc()
  std::string finished;  // ISO-8601 UTC
};

struct TestClockInfo {
  double max_offset = 0.0;  // seconds
  double max_drift = 0.0;   // seconds per second
  std::uint64_t seed = 0;
  int node_size = 0;  // ranks per virtual node
  std::string scope;  // node, process or host: what reads one test clock
};

// What the sync layer did (present once the world clock exists).
struct SyncLayerInfo {
  int nodes = 0;
  int levels = 0;
  std::string note;  // why a scheme fell back, if it did
};

// The shared-clock check of h2hca/h3hca (docs/clock-sync.md).
struct SharedClockCheckInfo {
  double tolerance = 0;  // seconds
  int checked_groups = 0;
  int fell_back_groups = 0;
  double worst_disagreement = 0;  // seconds
  std::optional<std::string> worst_host;
  std::string worst_world_ranks;
  bool sub_communicators_fell_back = false;
};

// Check-Global-Clock at the end of the run: the world clock's offset from
// world rank 0 at a sample of ranks (node leaders first), measured.
struct ClockCheckInfo {
  int checked = 0;        // ranks measured
  int candidates = 0;     // ranks other than the reference
  double age = 0;         // seconds since the world clock's last sync
  double max_offset = 0;  // largest |measured offset|
  double median_offset = 0;
  double max_uncertainty = 0;             // of the measurements (half the best round trip or less)
  double max_bound = 0;                   // largest error bound the checked ranks reported
  int inconsistent = 0;                   // measured offset beyond both bounds plus its uncertainty
  double seconds = 0;                     // what the check cost at MPI_Finalize
  std::optional<double> truth_max_error;  // test clocks: largest true error of a checked rank
};

struct ClockInfo {
  std::string scheme;       // h2hca, hca3, h3hca ("" when mode=off)
  std::string time_source;  // monotonic, tsc, wtime
  std::string model;        // auto, offset, linear (as configured)
  std::string offset_alg;   // skampi, meanrtt
  int fitpoints = 0;
  int pingpongs = 0;
  double initial_sync_seconds = 0.0;
  std::uint64_t sync_count = 0;  // all syncs of the world clock, the initial one included
  double sync_seconds_total = 0.0;
  // Resyncs, over all processes, whose clock was much worse than the one it
  // would replace, which was kept (logic::keeps_old_clock).
  std::uint64_t refused_resyncs = 0;
  std::optional<TestClockInfo> test_clock;  // JSON null when absent
  std::optional<ClockCheckInfo> end_check;  // JSON null when not run (mode off, one process)
  std::optional<SyncLayerInfo> sync_layer;  // JSON keys absent when no world clock
  // JSON null when there was no check (no world clock, nothing checked).
  std::optional<SharedClockCheckInfo> shared_clock_check;
};

// Harmonized barriers that ran in several threads of one process at once.
struct ThreadsInfo {
  std::uint64_t processes = 0;  // processes where that happened
  int peak_threads_rank0 = 0;
};

// HARMONIZE_ARRIVAL (mode harmonize): the pattern imposed after every
// harmonized barrier, and its delta on MPI_COMM_WORLD (seconds).
struct ArrivalInfo {
  std::string pattern;
  double delta = 0;
};

// HARMONIZE_TRACE: where the timeline went and what its window left out.
struct TraceInfo {
  std::string file;  // empty when it could not be written
  std::string window;
  std::uint64_t dropped_events = 0;
  std::string otf2;  // HARMONIZE_TRACE_FORMAT otf2 or both: the archive's anchor file
  std::string lost;  // the path asked for, when the timeline was written nowhere
};

// HARMONIZE_INTERLEAVE: a side against the baseline (the first side) on one
// communicator, key and figure, paired block by block.
struct InterleaveComparison {
  std::string communicator;
  int size = 0;
  std::string operation;
  std::uint64_t bytes = 0;
  int root = -1;
  std::string figure;  // t_global or local_max
  std::string side;
  std::uint64_t blocks = 0;                  // blocks with calls of both sides: the sample
  std::uint64_t positive = 0, negative = 0;  // blocks whose difference is > 0, < 0
  std::uint64_t calls = 0, baseline_calls = 0;
  double median = 0, baseline_median = 0;  // seconds, over the run
  // The median of the blocks' differences (side less baseline) and its
  // interval at the per-comparison level; none when too few blocks.
  double delta = 0;
  std::optional<double> low, high;
  bool decided = false;  // the interval excludes 0
};

struct InterleaveInfo {
  std::vector<std::string> sides;  // as HARMONIZE_INTERLEAVE's canonical text names them
  int run = 1;
  std::uint64_t seed = 0;
  std::string algorithm_switch;  // how the sides' algorithms are switched; empty: none set
  double family_level = 0.05;    // the chance that any comparison decides when no side differs
  double level_each = 0.05;      // family_level / comparisons (Bonferroni)
  std::vector<InterleaveComparison> comparisons;
  std::uint64_t decided = 0;
};

struct JobReport {
  int version = 1;
  std::string mode;  // off, observe, harmonize
  JobInfo job;
  std::map<std::string, std::string> config;  // effective HARMONIZE_* values
  ClockInfo clock;
  std::optional<ArrivalInfo> arrival;  // JSON null outside mode harmonize
  std::vector<CommSummary> communicators;
  // Test clocks: the ground-truth counts of the communicators are known
  // (JSON null otherwise).
  bool truth_known = false;
  std::optional<ThreadsInfo> concurrent_harmonized_barriers;  // JSON null when unknown
  // The processes whose records the merge at MPI_Finalize lost, and why.
  std::vector<std::string> missing_records;
  std::optional<TraceInfo> trace;            // no key without HARMONIZE_TRACE
  std::optional<InterleaveInfo> interleave;  // no key without HARMONIZE_INTERLEAVE
  // Where the JSON file ended up (after write_report_file) for the summary
  // line; not part of the JSON itself. Empty when no file was written.
  std::string report_file;
  // The path asked for, when the report could be written nowhere (not even
  // a fallback place): the line says it is lost rather than "report none".
  std::string report_lost;
};

}  // namespace harmonize::report
