// harmonize-clockcheck: Check-Global-Clock (paper 001 Alg. 6). Synchronizes
// MPI_COMM_WORLD with the configured scheme, then reports every rank's offset
// to the reference right after the sync and after --wait seconds, measured
// with SKaMPI-Offset over the global clocks and, with test clocks, the exact
// error against ground truth (every rank knows its own skew and rank 0's).
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
#include "harmonize/clock_setup.hpp"
#include "sync/mpi/comm_clock_sync.hpp"
#include "sync/mpi/topology.hpp"
#include "sync/offset_measure.hpp"

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
    return global.to_global(skewed_time(setup.skew, t)) - skewed_time(setup.skew_of_rank(0), t);
  }
};

// Ground truth needs one clock read by every process: CLOCK_MONOTONIC is;
// a TSC calibrated per process and MPI_Wtime (per-process origin in some
// MPIs) are not.
bool truth_is_shared(const Clocks& clocks) {
  return std::string_view(clocks.truth().name()) == "monotonic";
}

// Algorithm 6's MEASURE_OFFSET from every rank to rank 0, over the global
// clocks, on the sync's private communicator. Returns this rank's offset
// (global - reference), 0 on rank 0.
double measured_offset(CommClockSync& sync, const GlobalClock& global, const Settings& settings) {
  auto& transport = sync.transport();
  if (transport.rank() == 0) {
    for (int peer = 1; peer < transport.size(); ++peer)
      harmonize::sync::serve_as_reference(transport, peer, global);
    return 0.0;
  }
  // Everybody else waits its turn in the serve loop of rank 0. The most
  // certain of `fitpoints` measurements: on a loaded machine one of them can
  // be caught in a stall and be off by milliseconds.
  harmonize::sync::FitPoint best{};
  best.uncertainty = std::numeric_limits<double>::infinity();
  for (int i = 0; i < std::max(1, settings.fitpoints); ++i) {
    const auto point =
        harmonize::sync::measure_offset_as_client(transport, 0, global, settings, 0.0);
    if (!(point.uncertainty >= best.uncertainty)) best = point;
  }
  harmonize::sync::release_reference(transport, 0);
  return best.offset;
}

struct RankRow {
  double sync_seconds = 0, true_after_sync = 0, true_after_wait = 0, measured_after_sync = 0,
         measured_after_wait = 0;
};

std::vector<RankRow> gather_rows(const RankRow& mine, int size) {
  std::vector<RankRow> rows(static_cast<std::size_t>(size));
  PMPI_Gather(&mine, 5, MPI_DOUBLE, rows.data(), 5, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return rows;
}

double max_abs(const std::vector<RankRow>& rows, double RankRow::*field) {
  double worst = 0;
  for (const auto& row : rows) worst = std::max(worst, std::abs(row.*field));
  return worst;
}

double mean_abs(const std::vector<RankRow>& rows, double RankRow::*field) {
  double sum = 0;
  for (const auto& row : rows) sum += std::abs(row.*field);
  return rows.size() > 1 ? sum / static_cast<double>(rows.size() - 1) : 0.0;  // rank 0 is 0
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
  row.measured_after_sync = measured_offset(*sync, global, settings);
  spin_for(options.wait);
  if (clocks.test()) row.true_after_wait = clocks.true_error(global, synced_at + options.wait);
  row.measured_after_wait = measured_offset(*sync, global, settings);
  const auto rows = gather_rows(row, size);
  if (rank != 0) return 0;

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
          "\"true_error_after_wait_ns\": %.6g, \"offset_after_sync_ns\": %.6g, "
          "\"offset_after_wait_ns\": %.6g}",
          r ? ", " : "", r, x.sync_seconds, ns(x.true_after_sync), ns(x.true_after_wait),
          ns(x.measured_after_sync), ns(x.measured_after_wait));
    }
    std::printf(
        "], \"max\": {\"sync_seconds\": %.9g, \"true_error_after_sync_ns\": %.6g, "
        "\"true_error_after_wait_ns\": %.6g, \"offset_after_sync_ns\": %.6g, "
        "\"offset_after_wait_ns\": %.6g}, \"mean_abs\": {\"offset_after_sync_ns\": %.6g, "
        "\"offset_after_wait_ns\": %.6g}}\n",
        durations.back(), ns(max_abs(rows, &RankRow::true_after_sync)),
        ns(max_abs(rows, &RankRow::true_after_wait)),
        ns(max_abs(rows, &RankRow::measured_after_sync)),
        ns(max_abs(rows, &RankRow::measured_after_wait)),
        ns(mean_abs(rows, &RankRow::measured_after_sync)),
        ns(mean_abs(rows, &RankRow::measured_after_wait)));
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
  std::printf("%5s %14s %16s %16s %18s %18s\n", "rank", "sync_us", "true_sync_ns", "true_wait_ns",
              "offset_sync_ns", "offset_wait_ns");
  for (int r = 0; r < size; ++r) {
    const auto& x = rows[static_cast<std::size_t>(r)];
    std::printf("%5d %14.1f %16.1f %16.1f %18.1f %18.1f\n", r, x.sync_seconds * 1e6,
                ns(x.true_after_sync), ns(x.true_after_wait), ns(x.measured_after_sync),
                ns(x.measured_after_wait));
  }
  std::printf(
      "summary: sync_us=%.1f true_error_after_sync_ns=%.1f true_error_after_wait_ns=%.1f "
      "offset_after_sync_max_ns=%.1f offset_after_sync_mean_ns=%.1f "
      "offset_after_wait_max_ns=%.1f offset_after_wait_mean_ns=%.1f wait_s=%g\n",
      durations.back() * 1e6, ns(max_abs(rows, &RankRow::true_after_sync)),
      ns(max_abs(rows, &RankRow::true_after_wait)),
      ns(max_abs(rows, &RankRow::measured_after_sync)),
      ns(mean_abs(rows, &RankRow::measured_after_sync)),
      ns(max_abs(rows, &RankRow::measured_after_wait)),
      ns(mean_abs(rows, &RankRow::measured_after_wait)), options.wait);
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
        const double error = clocks.test() ? clocks.true_error(global, common_instant(clocks))
                                           : measured_offset(*sync, global, settings);
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
  harmonize::ClockSetup setup = harmonize::make_clock_setup(policy.policy, rank, error);
  if (!setup.local) {
    if (rank == 0) std::fprintf(stderr, "harmonize: %s\n", error.c_str());
    MPI_Finalize();
    return 2;
  }
  setup.sync_settings.yield_while_waiting =
      harmonize::sync::node_crowding(MPI_COMM_WORLD).oversubscribed;
  const Clocks clocks{setup};
  const Settings& settings = setup.sync_settings;
  const std::function<int(int)>& node_of = setup.virtual_node_of_rank;
  const int status = options->sweep ? run_sweep(settings, clocks, node_of, rank)
                                    : run_check(*options, settings, clocks, node_of, rank, size);
  std::fflush(stdout);
  MPI_Finalize();
  return status;
}
