// harmonize-clockcheck: Check-Global-Clock (paper 001 Alg. 6). Synchronizes
// MPI_COMM_WORLD with the configured scheme, then reports every rank's offset
// to the reference right after the sync and after --wait seconds, measured
// with SKaMPI-Offset over the global clocks (sync/clock_check), next to the
// error bound the rank's clock reports and, with test clocks, the exact
// error against ground truth (every rank knows its own skew and rank 0's).
// "bound honest: N of M ranks within" counts the ranks whose true error (or,
// without test clocks, measured offset) stayed within their bound both times.
//
//   harmonize-clockcheck [--wait S] [--syncs N] [--interval S] [--json] [--sweep]
//
// --syncs N repeats the sync N times spaced by --interval to show how the
// history refines the drift; --sweep prints a table of effort (fit points x
// ping-pongs) against sync duration and error.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "clock/global_clock.hpp"
#include "clock/test_clock.hpp"
#include "clock/time_source.hpp"
#include "config/policy.hpp"
#include "harmonize/startup/clock_setup.hpp"
#include "sync/clock_check.hpp"
#include "sync/mpi/comm_clock_sync.hpp"
#include "sync/mpi/topology.hpp"

namespace {

using harmonize::clock::GlobalClock;
using harmonize::sync::CommClockSync;
using harmonize::sync::Settings;

struct Options {
  double wait = 10.0;
  int syncs = 1;
  double interval = 1.0;
  bool json = false;
  bool sweep = false;
};

std::optional<Options> parse_options(int argc, char** argv, std::string& error) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](double& out) {
      if (i + 1 >= argc) return false;
      char* end = nullptr;
      out = std::strtod(argv[++i], &end);
      return end != nullptr && *end == '\0' && std::isfinite(out) && out >= 0;
    };
    double number = 0;
    if (arg == "--json") {
      options.json = true;
    } else if (arg == "--sweep") {
      options.sweep = true;
    } else if (arg == "--wait" && value(number)) {
      options.wait = number;
    } else if (arg == "--interval" && value(number)) {
      options.interval = number;
    } else if (arg == "--syncs" && value(number) && number >= 1 && number == std::floor(number)) {
      options.syncs = static_cast<int>(number);
    } else {
      error = "bad argument '" + std::string(arg) +
              "'; usage: harmonize-clockcheck [--wait S] [--syncs N] [--interval S] [--json] "
              "[--sweep]";
      return std::nullopt;
    }
  }
  return options;
}

// The clocks of this process, as the library sets them up. The tool's truth
// is the selected time source before the test skew (ClockSetup::source()),
// which the skewed clock the sync reads follows exactly, whatever the source.
// (The session's truth, ClockSetup::truth, is always CLOCK_MONOTONIC; the two
// differ with tsc and wtime only.)
struct Clocks {
  const harmonize::ClockSetup& setup;
  const harmonize::clock::TimeSource& truth() const { return setup.source(); }
  const harmonize::clock::TimeSource& source() const { return *setup.local; }
  bool test() const { return setup.test_clock_active; }

  // Exact error of `global` against rank 0's clock at true time t. Every
  // rank evaluates at the same instant (see common_instant), so a rank that
  // was descheduled before it got here does not see its model's residual
  // drift over that gap counted as error.
  double true_error(const GlobalClock& global, double t) const {
    return true_clock_error(global, setup.skew, setup.skew_of_rank(0), t);
  }
  // The bound `global` reports at true time t (test clocks only).
  double bound_at(const GlobalClock& global, double t) const {
    return global.error_bound_at(global.to_global(skewed_time(setup.skew, t)));
  }
};

// Ground truth needs one clock read by every process: CLOCK_MONOTONIC is;
// a TSC calibrated per process and MPI_Wtime (per-process origin in some
// MPIs) are not.
bool truth_is_shared(const Clocks& clocks) {
  return std::string_view(clocks.truth().name()) == "monotonic";
}

// Algorithm 6's MEASURE_OFFSET from (up to kMaxCheckedRanks) ranks to rank
// 0, over the global clocks, on the sync's private communicator. A rank that
// is not checked (beyond the cap) reports NaN; rank 0 its own bound only.
harmonize::sync::ClockCheck checked_offset(CommClockSync& sync, const GlobalClock& global) {
  auto& transport = sync.transport();
  const auto sample = harmonize::sync::sample_ranks(transport.size());
  const auto results = harmonize::sync::check_global_clock(transport, global, sample);
  harmonize::sync::ClockCheck mine;
  mine.rank = transport.rank();
  if (transport.rank() == 0) {
    mine.bound = global.error_bound_at(global.now());
    return mine;
  }
  if (results.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    mine.offset = mine.uncertainty = mine.bound = mine.reference_bound = nan;
    return mine;
  }
  return results.front();
}

// Within when |true error| <= bound (test clocks) or, without ground truth,
// when the measured offset is consistent with the two bounds.
bool within(double true_error, double bound, const harmonize::sync::ClockCheck& check, bool test) {
  return test ? std::abs(true_error) <= bound : check.consistent();
}

struct RankRow {
  double sync_seconds = 0, true_after_sync = 0, true_after_wait = 0, measured_after_sync = 0,
         measured_after_wait = 0, bound_after_sync = 0, bound_after_wait = 0,
         uncertainty_after_sync = 0, uncertainty_after_wait = 0, counted = 0, within = 0,
         consistent_after_sync = 0, consistent_after_wait = 0;
};
constexpr int kRowDoubles = sizeof(RankRow) / sizeof(double);

std::vector<RankRow> gather_rows(const RankRow& mine, int size) {
  std::vector<RankRow> rows(static_cast<std::size_t>(size));
  PMPI_Gather(&mine, kRowDoubles, MPI_DOUBLE, rows.data(), kRowDoubles, MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  return rows;
}

// Over the ranks that have the value (unchecked ranks carry NaN).
double max_abs(const std::vector<RankRow>& rows, double RankRow::*field) {
  double worst = 0;
  for (const auto& row : rows)
    if (!std::isnan(row.*field)) worst = std::max(worst, std::abs(row.*field));
  return worst;
}

double mean_abs(const std::vector<RankRow>& rows, double RankRow::*field) {
  double sum = 0;
  int count = 0;
  for (const auto& row : rows) {
    if (std::isnan(row.*field)) continue;
    sum += std::abs(row.*field);
    ++count;
  }
  return count > 1 ? sum / static_cast<double>(count - 1) : 0.0;  // rank 0 is 0
}

int count_of(const std::vector<RankRow>& rows, double RankRow::*field) {
  int count = 0;
  for (const auto& row : rows) count += row.*field != 0 ? 1 : 0;
  return count;
}

// Null for a rank that was not checked (beyond kMaxCheckedRanks, no truth).
const char* json_bool(const RankRow& row, double flag) {
  return row.counted == 0 ? "null" : (flag != 0 ? "true" : "false");
}

// JSON has no NaN: an unchecked rank's measurement is null.
std::string json_ns(double seconds) {
  if (std::isnan(seconds)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", seconds * 1e9);
  return text;
}

void spin_for(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

double max_over_ranks(double value) {
  double result = value;
  PMPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return result;
}

// The true time at which the last rank got here: "right after the sync".
double common_instant(const Clocks& clocks) {
  return max_over_ranks(clocks.truth().now());
}

int run_check(const Options& options, const Settings& settings, const Clocks& clocks,
              const std::function<int(int)>& node_of, int rank, int size) {
  auto sync = CommClockSync::create_on_copy(MPI_COMM_WORLD, settings,
                                            GlobalClock(clocks.source(), {}), node_of);
  RankRow row;
  GlobalClock global(clocks.source(), {});
  double synced_at = 0;
  std::vector<double> durations;
  std::vector<double> errors_after_each;
  for (int i = 0; i < options.syncs; ++i) {
    if (i > 0) spin_for(options.interval);
    // Ranks wake from the interval at different moments; without the barrier
    // the duration would measure that, not the sync.
    PMPI_Barrier(MPI_COMM_WORLD);
    global = sync->synchronize();
    synced_at = common_instant(clocks);
    const double error = clocks.test() ? clocks.true_error(global, synced_at) : 0.0;
    durations.push_back(max_over_ranks(sync->last_report().seconds));
    errors_after_each.push_back(max_over_ranks(std::abs(error)));
    row.true_after_sync = error;
  }
  row.sync_seconds = sync->last_report().seconds;
  const auto after_sync = checked_offset(*sync, global);
  spin_for(options.wait);
  if (clocks.test()) row.true_after_wait = clocks.true_error(global, synced_at + options.wait);
  const auto after_wait = checked_offset(*sync, global);
  row.measured_after_sync = after_sync.offset;
  row.measured_after_wait = after_wait.offset;
  row.uncertainty_after_sync = after_sync.uncertainty;
  row.uncertainty_after_wait = after_wait.uncertainty;
  row.bound_after_sync = clocks.test() ? clocks.bound_at(global, synced_at) : after_sync.bound;
  row.bound_after_wait =
      clocks.test() ? clocks.bound_at(global, synced_at + options.wait) : after_wait.bound;
  // With the bounds at the measurement (not at the common instant: a loaded
  // rank may measure milliseconds later, while its bound grows).
  row.consistent_after_sync = after_sync.consistent() ? 1 : 0;
  row.consistent_after_wait = after_wait.consistent() ? 1 : 0;
  // Rank 0 is within by definition (no error, no offset to itself).
  row.counted = clocks.test() || rank == 0 || !std::isnan(after_sync.offset) ? 1 : 0;
  row.within =
      row.counted != 0 &&
              within(row.true_after_sync, row.bound_after_sync, after_sync, clocks.test()) &&
              within(row.true_after_wait, row.bound_after_wait, after_wait, clocks.test())
          ? 1
          : 0;
  const auto rows = gather_rows(row, size);
  if (rank != 0) return 0;
  const int honest = count_of(rows, &RankRow::within);
  const int counted = count_of(rows, &RankRow::counted);
  const char* honest_by = clocks.test() ? "truth" : "measured offsets";

  const auto& report = sync->last_report();
  const auto ns = [](double s) { return s * 1e9; };
  if (options.json) {
    std::printf(
        "{\"ranks\": %d, \"nodes\": %d, \"scheme\": \"%s\", \"rounds\": %d, \"levels\": %d, "
        "\"fitpoints\": %d, \"pingpongs\": %d, \"source\": \"%s\", \"test_clock\": %s, "
        "\"truth_exact\": %s, \"wait_s\": %g, \"syncs\": [",
        size, report.nodes, harmonize::sync::to_string(report.scheme_used), report.rounds,
        report.levels, settings.fitpoints, settings.pingpongs, clocks.source().name(),
        clocks.test() ? "true" : "false", truth_is_shared(clocks) ? "true" : "false", options.wait);
    for (std::size_t i = 0; i < durations.size(); ++i)
      std::printf("%s{\"seconds\": %.9g, \"max_true_error_ns\": %.6g}", i ? ", " : "", durations[i],
                  ns(errors_after_each[i]));
    std::printf("], \"fallback_note\": \"%s\", \"per_rank\": [", report.fallback_note.c_str());
    for (int r = 0; r < size; ++r) {
      const auto& x = rows[static_cast<std::size_t>(r)];
      std::printf(
          "%s{\"rank\": %d, \"sync_seconds\": %.9g, \"true_error_after_sync_ns\": %.6g, "
          "\"true_error_after_wait_ns\": %.6g, \"bound_after_sync_ns\": %.6g, "
          "\"bound_after_wait_ns\": %.6g, \"offset_after_sync_ns\": %s, "
          "\"offset_after_wait_ns\": %s, \"offset_uncertainty_after_sync_ns\": %s, "
          "\"offset_uncertainty_after_wait_ns\": %s, \"offset_consistent_after_sync\": %s, "
          "\"offset_consistent_after_wait\": %s, \"bound_within\": %s}",
          r ? ", " : "", r, x.sync_seconds, ns(x.true_after_sync), ns(x.true_after_wait),
          ns(x.bound_after_sync), ns(x.bound_after_wait), json_ns(x.measured_after_sync).c_str(),
          json_ns(x.measured_after_wait).c_str(), json_ns(x.uncertainty_after_sync).c_str(),
          json_ns(x.uncertainty_after_wait).c_str(), json_bool(x, x.consistent_after_sync),
          json_bool(x, x.consistent_after_wait), json_bool(x, x.within));
    }
    std::printf(
        "], \"max\": {\"sync_seconds\": %.9g, \"true_error_after_sync_ns\": %.6g, "
        "\"true_error_after_wait_ns\": %.6g, \"bound_after_sync_ns\": %.6g, "
        "\"bound_after_wait_ns\": %.6g, \"offset_after_sync_ns\": %.6g, "
        "\"offset_after_wait_ns\": %.6g}, \"mean_abs\": {\"offset_after_sync_ns\": %.6g, "
        "\"offset_after_wait_ns\": %.6g}, \"bound_honest\": {\"within\": %d, \"ranks\": %d, "
        "\"by\": \"%s\"}}\n",
        durations.back(), ns(max_abs(rows, &RankRow::true_after_sync)),
        ns(max_abs(rows, &RankRow::true_after_wait)), ns(max_abs(rows, &RankRow::bound_after_sync)),
        ns(max_abs(rows, &RankRow::bound_after_wait)),
        ns(max_abs(rows, &RankRow::measured_after_sync)),
        ns(max_abs(rows, &RankRow::measured_after_wait)),
        ns(mean_abs(rows, &RankRow::measured_after_sync)),
        ns(mean_abs(rows, &RankRow::measured_after_wait)), honest, counted, honest_by);
    return 0;
  }
  std::printf(
      "clockcheck: scheme %s, offset %s, model %s, fitpoints %d, pingpongs %d, source %s, "
      "%d ranks, %d nodes, %d levels, %d rounds\n",
      harmonize::sync::to_string(report.scheme_used), harmonize::sync::to_string(settings.offset),
      harmonize::sync::to_string(settings.model), settings.fitpoints, settings.pingpongs,
      clocks.source().name(), size, report.nodes, report.levels, report.rounds);
  if (!report.fallback_note.empty())
    std::printf("clockcheck: note: %s\n", report.fallback_note.c_str());
  if (clocks.test() && !truth_is_shared(clocks))
    std::printf(
        "clockcheck: note: the %s source is per process (own calibration or origin), so "
        "the true errors include how the processes' sources differ; only monotonic is "
        "one clock for all\n",
        clocks.truth().name());
  for (std::size_t i = 0; i < durations.size(); ++i)
    std::printf(
        "sync %zu: %.1f us%s\n", i + 1, durations[i] * 1e6,
        clocks.test()
            ? (", max true error " + std::to_string(ns(errors_after_each[i])) + " ns").c_str()
            : "");
  // Per moment: the true error (test clocks), the bound the rank's clock
  // reports, the offset Alg. 6 measures and that measurement's uncertainty.
  std::printf("%5s %10s | %12s %12s %12s %9s | %12s %12s %12s %9s\n", "rank", "sync_us",
              "true_sync_ns", "bound_ns", "offset_ns", "+-ns", "true_wait_ns", "bound_ns",
              "offset_ns", "+-ns");
  for (int r = 0; r < size; ++r) {
    const auto& x = rows[static_cast<std::size_t>(r)];
    std::printf("%5d %10.1f | %12.1f %12.1f %12.1f %9.1f | %12.1f %12.1f %12.1f %9.1f%s\n", r,
                x.sync_seconds * 1e6, ns(x.true_after_sync), ns(x.bound_after_sync),
                ns(x.measured_after_sync), ns(x.uncertainty_after_sync), ns(x.true_after_wait),
                ns(x.bound_after_wait), ns(x.measured_after_wait), ns(x.uncertainty_after_wait),
                x.counted != 0 && x.within == 0 ? "  OUTSIDE BOUND" : "");
  }
  std::printf("bound honest: %d of %d ranks within (by %s)\n", honest, counted, honest_by);
  std::printf(
      "summary: sync_us=%.1f true_error_after_sync_ns=%.1f true_error_after_wait_ns=%.1f "
      "bound_after_sync_max_ns=%.1f bound_after_wait_max_ns=%.1f "
      "offset_after_sync_max_ns=%.1f offset_after_sync_mean_ns=%.1f "
      "offset_after_wait_max_ns=%.1f offset_after_wait_mean_ns=%.1f bound_honest=%d/%d "
      "wait_s=%g\n",
      durations.back() * 1e6, ns(max_abs(rows, &RankRow::true_after_sync)),
      ns(max_abs(rows, &RankRow::true_after_wait)), ns(max_abs(rows, &RankRow::bound_after_sync)),
      ns(max_abs(rows, &RankRow::bound_after_wait)),
      ns(max_abs(rows, &RankRow::measured_after_sync)),
      ns(mean_abs(rows, &RankRow::measured_after_sync)),
      ns(max_abs(rows, &RankRow::measured_after_wait)),
      ns(mean_abs(rows, &RankRow::measured_after_wait)), honest, counted, options.wait);
  return 0;
}

// Effort table: one fresh sync per cell; error from ground truth when test
// clocks are on, else the measured offset. Best of three per cell would hide
// the noise users will see, so each cell is the median of three.
int run_sweep(const Settings& base_settings, const Clocks& clocks,
              const std::function<int(int)>& node_of, int rank) {
  if (rank == 0)
    std::printf("%10s %10s %12s %16s\n", "fitpoints", "pingpongs", "sync_us",
                clocks.test() ? "true_error_ns" : "offset_ns");
  for (int fitpoints : {2, 4, 8, 16, 32}) {
    for (int pingpongs : {5, 10, 20, 40}) {
      Settings settings = base_settings;
      settings.fitpoints = fitpoints;
      settings.pingpongs = pingpongs;
      std::vector<double> durations, errors;
      for (int repeat = 0; repeat < 3; ++repeat) {
        auto sync = CommClockSync::create_on_copy(MPI_COMM_WORLD, settings,
                                                  GlobalClock(clocks.source(), {}), node_of);
        PMPI_Barrier(MPI_COMM_WORLD);
        const GlobalClock global = sync->synchronize();
        double error = clocks.test() ? clocks.true_error(global, common_instant(clocks))
                                     : checked_offset(*sync, global).offset;
        if (std::isnan(error)) error = 0;  // not among the checked ranks
        durations.push_back(max_over_ranks(sync->last_report().seconds));
        errors.push_back(max_over_ranks(std::abs(error)));
      }
      std::sort(durations.begin(), durations.end());
      std::sort(errors.begin(), errors.end());
      if (rank == 0)
        std::printf("%10d %10d %12.1f %16.1f\n", fitpoints, pingpongs, durations[1] * 1e6,
                    errors[1] * 1e9);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  std::string error;
  const auto options = parse_options(argc, argv, error);
  const auto policy = harmonize::config::load_policy_from_environment(false);
  if (!options || !policy.ok()) {
    if (rank == 0) {
      if (!options) std::fprintf(stderr, "harmonize-clockcheck: %s\n", error.c_str());
      for (const auto& line : policy.errors) std::fprintf(stderr, "harmonize: %s\n", line.c_str());
    }
    MPI_Finalize();
    return 2;
  }
  // The library's own set-up: the clocks, the sync settings and the
  // virtual nodes are those a job would run with.
  harmonize::ClockSetup setup = harmonize::make_clock_setup(
      policy.policy, [] { return harmonize::sync::gather_shared_memory_nodes(MPI_COMM_WORLD); },
      rank, error);
  if (!setup.local) {
    if (rank == 0) std::fprintf(stderr, "harmonize: %s\n", error.c_str());
    MPI_Finalize();
    return 2;
  }
  setup.sync_settings.on_oversubscribed_node(
      harmonize::sync::node_crowding(MPI_COMM_WORLD).oversubscribed);
  const Clocks clocks{setup};
  const Settings& settings = setup.sync_settings;
  const std::function<int(int)>& node_of = setup.virtual_node_of_rank;
  const int status = options->sweep ? run_sweep(settings, clocks, node_of, rank)
                                    : run_check(*options, settings, clocks, node_of, rank, size);
  std::fflush(stdout);
  MPI_Finalize();
  return status;
}
