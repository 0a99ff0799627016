// harmonize-bench-barrier: the exit skew of MPI_Barrier, native and
// harmonized, side by side in one run, measured against ground truth.
//
// All processes of one machine read the same CLOCK_MONOTONIC: the worker
// notes, for every barrier, when it returned on that clock, and the driver
// computes the true exit skew (max - min over ranks, per call) itself - it
// does not take the library's word for it. The library runs on test clocks
// (every rank's clock skewed by up to +-1 ms and +-50 ppm by default), so the
// harmonized side must really synchronize clocks to do well.
//
// Run without mpiexec: it is the driver and launches its own jobs, the sides
// interleaved (native, harmonize, native, ...) so machine noise hits both.
// A plain MPI program: linking harmonize would measure the library under itself.
//
// Figures from a busy machine are not figures from an idle one: the load
// average is printed beside them, and --hog makes the machine busy on purpose.

#include <dlfcn.h>
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harmonize/logic/barrier_decision.hpp"
#include "tools/common/between_calls.hpp"
#include "tools/common/launch.hpp"
#include "tools/common/machine_floor.hpp"

namespace {

using namespace harmonize::tools;

constexpr std::string_view kWorkerFlag = "--worker";
constexpr std::string_view kResultTag = "result:";

double now() {
  return monotonic_seconds();
}

// ---------------------------------------------------------------- worker

double percentile(const std::vector<double>& sorted, double p) {
  const std::size_t rank = static_cast<std::size_t>(p / 100.0 * static_cast<double>(sorted.size()));
  return sorted[std::min(sorted.size() - 1, rank)];
}

// argv: --worker CALLS WARMUP_SECONDS [WORK]
int run_worker(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long calls = argc > 2 ? std::max(1L, std::atol(argv[2])) : 100000;
  const double warmup = argc > 3 ? std::atof(argv[3]) : 2.0;
  // The driver checked it: the program's own work between two barriers.
  const BetweenCalls work =
      argc > 4 ? parse_between_calls(argv[4]).value_or(BetweenCalls{}) : BetweenCalls{};
  std::uint64_t call_index = 0;
  // Present only when the library is preloaded: the local flag of the last
  // harmonized barrier (0 = this process missed its deadline or left late).
  using LastFlag = int (*)(MPI_Comm, int*);
  const auto last_flag =
      reinterpret_cast<LastFlag>(dlsym(RTLD_DEFAULT, "MPIX_Harmonize_last_flag"));

  // Warm-up for a time rank 0 decides: connections, slack, and the library's
  // first resyncs (which come quickly at first to learn the drift).
  const double start = now();
  for (int go = 1; go;) {
    for (int i = 0; i < 64; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      do_work(step_of(work, call_index++));
    }
    go = rank == 0 ? now() - start < warmup : 0;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }

  std::vector<double> exits(static_cast<std::size_t>(calls));
  std::vector<char> flagged(static_cast<std::size_t>(calls), 0);
  double in_call = 0;
  for (long i = 0; i < calls; ++i) {
    const double entered = now();
    MPI_Barrier(MPI_COMM_WORLD);
    const double left = now();
    exits[static_cast<std::size_t>(i)] = left;
    in_call += left - entered;
    int flag = 1;
    if (last_flag != nullptr && last_flag(MPI_COMM_WORLD, &flag) == MPI_SUCCESS && flag == 0)
      flagged[static_cast<std::size_t>(i)] = 1;
    do_work(step_of(work, call_index++));
  }

  std::vector<double> all_exits(rank == 0 ? exits.size() * static_cast<std::size_t>(size) : 0);
  std::vector<char> all_flagged(rank == 0 ? flagged.size() * static_cast<std::size_t>(size) : 0);
  MPI_Gather(exits.data(), static_cast<int>(calls), MPI_DOUBLE, all_exits.data(),
             static_cast<int>(calls), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(flagged.data(), static_cast<int>(calls), MPI_CHAR, all_flagged.data(),
             static_cast<int>(calls), MPI_CHAR, 0, MPI_COMM_WORLD);
  double in_call_total = 0;
  MPI_Reduce(&in_call, &in_call_total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    // The calls every rank flagged valid are what a user keeps: their true
    // skew is the figure the flag promises (issue 23: none above 1 us).
    std::vector<double> skew, valid_skew;
    skew.reserve(exits.size());
    long flagged_any = 0, valid_above_1us = 0;
    for (std::size_t c = 0; c < exits.size(); ++c) {
      double low = all_exits[c], high = all_exits[c];
      bool any = false;
      for (int r = 0; r < size; ++r) {
        const double t = all_exits[static_cast<std::size_t>(r) * exits.size() + c];
        low = std::min(low, t);
        high = std::max(high, t);
        any = any || all_flagged[static_cast<std::size_t>(r) * exits.size() + c];
      }
      skew.push_back(high - low);
      flagged_any += any;
      if (!any) valid_skew.push_back(high - low);
      if (!any && high - low > 1e-6) valid_above_1us += 1;
    }
    std::sort(skew.begin(), skew.end());
    std::sort(valid_skew.begin(), valid_skew.end());
    if (valid_skew.empty()) valid_skew.push_back(-1);  // none: printed as "-"
    std::printf(
        "%.*s p50=%.9g p99=%.9g max=%.9g flagged=%.9g in_call=%.9g valid_p50=%.9g "
        "valid_p99=%.9g valid_above_1us=%ld\n",
        static_cast<int>(kResultTag.size()), kResultTag.data(), percentile(skew, 50),
        percentile(skew, 99), skew.back(),
        static_cast<double>(flagged_any) / static_cast<double>(calls),
        in_call_total / static_cast<double>(calls * size), percentile(valid_skew, 50),
        percentile(valid_skew, 99), valid_above_1us);
  }
  MPI_Finalize();
  return 0;
}

// ---------------------------------------------------------------- driver

struct Options {
  std::string mpiexec = "mpiexec";
  std::string library;
  int rounds = 3;
  long calls = 100000;
  double warmup = 2.0;
  std::string offset = "1ms";
  std::string drift = "50ppm";
  std::vector<std::string> transports;  // Open MPI btl lists; empty: flavor's defaults
  int hogs = 0;                         // processes spinning beside the ranks
  std::vector<std::string> env;         // VAR=VALUE for the harmonized ranks
  std::vector<std::string> slacks;      // fixed slacks, one harmonized side each
  BetweenCalls work;                    // the program's own, between two barriers
};

// More hogs than this only measure the scheduler.
constexpr long kMaxHogs = 64;

// p50, p99, max, flagged, in_call, valid_p50, valid_p99, valid_above_1us[, the
// library's view][, load]
using Result = std::map<std::string, double>;

std::optional<Result> parse_result(const std::string& output) {
  const auto at = output.find(kResultTag);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream fields(output.substr(at + kResultTag.size()));
  Result result;
  for (std::string field; fields >> field;) {
    const auto equals = field.find('=');
    if (equals == std::string::npos) break;
    result[field.substr(0, equals)] = std::strtod(field.c_str() + equals + 1, nullptr);
  }
  if (result.size() < 8) return std::nullopt;
  return result;
}

// What the library itself said about a harmonized run (its JSON report): the
// clock-error bounds (proven and likely, and how many exits the truth put
// beyond the likely one) beside the true clock error (its test clocks know it),
// late exits beside the misses, and what the resyncs cost per call.
void add_library_view(const std::string& report_path, Result& result) {
  std::ifstream in(report_path);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  std::remove(report_path.c_str());
  if (report.is_discarded() || !report.contains("communicators")) return;
  for (const auto& comm : report["communicators"]) {
    if (comm.value("name", "") != "MPI_COMM_WORLD") continue;
    const double calls = comm.value("harmonized_calls", 0.0);
    result["bound"] = comm["clock_error_bound"].value("p50", 0.0);
    result["likely"] = comm["clock_error_likely"].value("p50", 0.0);
    if (const double checks = comm.value("truth_bound_checks", 0.0); checks > 0)
      result["likely_out"] = comm.value("truth_likely_violations", 0.0) / checks;
    result["late"] = calls > 0 ? comm.value("late_calls_any", 0.0) / calls : 0.0;
    // How long the ranks spun towards their deadlines: what a bare spin
    // after the same work is measured with (print_work_floor).
    if (comm["wait"].value("count", 0) > 0) result["spin"] = comm["wait"].value("p50", 0.0);
    if (comm["truth_clock_error"].value("count", 0) > 0) {
      result["error_p50"] = comm["truth_clock_error"].value("p50", 0.0);
      result["error_p99"] = comm["truth_clock_error"].value("p99", 0.0);
    }
    const double all_calls = comm.value("calls", 0.0);
    if (all_calls > 0) result["resync"] = comm.value("resync_seconds", 0.0) / all_calls;
  }
}

// The 1-minute load average now: it lags (a run of a few seconds mostly shows
// the minute before it), but it tells an idle machine from a busy one.
std::optional<double> load_average() {
  double load = 0;
  if (getloadavg(&load, 1) != 1) return std::nullopt;
  return load;
}

// The built-in assignments with the user's added, a user's replacing a
// built-in of the same name (one -x per variable: no launcher's order decides).
std::vector<std::string> with_overrides(std::vector<std::string> assignments,
                                        const std::vector<std::string>& overrides) {
  for (const std::string& assignment : overrides) {
    const std::string name = assignment.substr(0, assignment.find('=') + 1);
    std::erase_if(assignments, [&](const std::string& a) { return a.starts_with(name); });
    assignments.push_back(assignment);
  }
  return assignments;
}

const char* const kUsage =
    "usage: harmonize-bench-barrier [--mpiexec PATH] [--library PATH] [--rounds N] [--calls N]\n"
    "                               [--warmup SECONDS] [--offset DURATION] [--drift PPM]\n"
    "                               [--btl LIST]... [--hog N] [--env VAR=VALUE]...\n"
    "                               [--slack DURATION]... [--work WORK]\n"
    "True exit skew of MPI_Barrier on 2 ranks, native vs harmonized (HARMONIZE_MODE=harmonize\n"
    "on test clocks), side by side. Open MPI: over shared memory and TCP unless --btl is given.\n"
    "  --hog N          N processes spin on the CPU beside the ranks while the rounds run\n"
    "                   (default 0, at most 64)\n"
    "  --env VAR=VALUE  extra environment for the harmonized ranks (repeatable), e.g.\n"
    "                   --env HARMONIZE_MISS_TARGET=1%; replaces a built-in of the same name\n"
    "  --slack DURATION one more harmonized side whose slack is fixed at DURATION (repeatable;\n"
    "                   e.g. 500ns, 2us): flagged share against time in the call, the frontier\n"
    "                   the default's cost-based choice sits on (docs/barrier.md)\n"
    "  --work WORK      what the program does between two barriers: none (default),\n"
    "                   sleep:DURATION, spin:DURATION (e.g. spin:1ms), or mix (0-100 ms,\n"
    "                   sleeping or spinning, drawn per call); set --calls to fit\n"
    "Column load: the 1-minute load average at the end of each run, median. It lags: a short\n"
    "run mostly shows the minute before it.\n"
    "Line machine floor: measured first, how often 2 threads (one per core the driver may\n"
    "run on, at most) spinning on the clock were away longer than the late-exit threshold:\n"
    "the share of exits late whatever the library does. With --work, a line after each\n"
    "transport: the same threads doing that work, then spinning to a deadline as long as the\n"
    "harmonized ranks spun (median), and how often either left late.\n"
    "Run it without mpiexec: it launches its own MPI jobs.\n";

std::string parse_options(int argc, char** argv, Options& options, bool& help) {
  return each_option(argc, argv, help,
                     [&](std::string_view flag, const char* value) -> std::string {
                       if (flag == "--mpiexec") {
                         options.mpiexec = value;
                       } else if (flag == "--library") {
                         options.library = value;
                       } else if (flag == "--offset") {
                         options.offset = value;
                       } else if (flag == "--drift") {
                         options.drift = value;
                       } else if (flag == "--btl") {
                         options.transports.emplace_back(value);
                       } else if (flag == "--warmup") {
                         options.warmup = std::atof(value);
                       } else if (flag == "--work") {
                         const auto work = parse_between_calls(value);
                         if (!work)
                           return "bad value '" + std::string(value) +
                                  "' for --work (none, sleep:DURATION, spin:DURATION or mix)";
                         options.work = *work;
                       } else if (flag == "--slack") {
                         options.slacks.emplace_back(value);
                       } else if (flag == "--env") {
                         const std::string_view assignment = value;
                         const auto equals = assignment.find('=');
                         if (equals == 0 || equals == std::string_view::npos)
                           return "--env needs VAR=VALUE, not '" + std::string(value) + "'";
                         options.env.emplace_back(value);
                       } else if (flag == "--hog") {
                         const auto n = parse_count(value);
                         if (!n) return "bad value '" + std::string(value) + "' for --hog";
                         options.hogs = static_cast<int>(std::min(*n, kMaxHogs));
                       } else if (const auto n = parse_positive(value); !n) {
                         return "bad value '" + std::string(value) + "' for " + std::string(flag);
                       } else if (flag == "--rounds") {
                         options.rounds = static_cast<int>(std::min(*n, 100L));
                       } else if (flag == "--calls") {
                         options.calls = *n;
                       } else {
                         return "unknown option " + std::string(flag);
                       }
                       return {};
                     });
}

// Every option, given or defaulted, so that the line reruns this very run.
std::vector<std::string> reproduce_command(const std::string& self, const Options& options) {
  char warmup[32];
  std::snprintf(warmup, sizeof warmup, "%g", options.warmup);
  std::vector<std::string> args{self,
                                "--mpiexec",
                                options.mpiexec,
                                "--library",
                                options.library,
                                "--rounds",
                                std::to_string(options.rounds),
                                "--calls",
                                std::to_string(options.calls),
                                "--warmup",
                                warmup,
                                "--offset",
                                options.offset,
                                "--drift",
                                options.drift,
                                "--hog",
                                std::to_string(options.hogs)};
  for (const std::string& transport : options.transports) {
    if (!transport.empty()) args.insert(args.end(), {"--btl", transport});
  }
  for (const std::string& assignment : options.env) args.insert(args.end(), {"--env", assignment});
  for (const std::string& slack : options.slacks) args.insert(args.end(), {"--slack", slack});
  if (options.work.kind != BetweenCalls::Kind::none)
    args.insert(args.end(), {"--work", describe(options.work)});
  return args;
}

std::string nanoseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, seconds < 1e-6 ? "%.0f ns" : "%.2f us",
                seconds < 1e-6 ? seconds * 1e9 : seconds * 1e6);
  return text;
}

// Where the harmonized side's report goes, gone however the driver returns.
class ReportDir {
 public:
  ReportDir() {
    if (mkdtemp(path_) == nullptr) {
      path_[0] = '\0';
      return;
    }
    remove_on_stop(report());
    remove_on_stop(path_);
  }
  ~ReportDir() {
    if (!ok()) return;
    std::remove(report().c_str());  // left by a run that failed after writing it
    rmdir(path_);
    keep_on_stop(report());
    keep_on_stop(path_);
  }
  ReportDir(const ReportDir&) = delete;
  ReportDir& operator=(const ReportDir&) = delete;

  bool ok() const { return path_[0] != '\0'; }
  std::string report() const { return std::string(path_) + "/report.json"; }

 private:
  char path_[sizeof "/tmp/harmonize-bench-XXXXXX"] = "/tmp/harmonize-bench-XXXXXX";
};

// What every job of a run shares.
struct Bench {
  const Options& options;
  Flavor flavor;
  std::string self;
  std::vector<std::string> env;  // the launcher's: clean of the caller's preload
  std::string report_path;
  std::vector<std::string> last_command;  // one harmonized job, for the user to rerun
};

using Samples = std::map<std::string, std::map<std::string, std::vector<double>>>;  // side, key

std::vector<std::string> rank_environment(const Bench& bench, const std::string& side, int round) {
  if (side == "native") return {};
  const Options& o = bench.options;
  std::vector<std::string> fixed;  // a side "slack X": the slack pinned at X
  if (side.starts_with("slack ")) {
    const std::string slack = side.substr(6);
    fixed = {"HARMONIZE_SLACK=" + slack, "HARMONIZE_SLACK_MIN=" + slack,
             "HARMONIZE_SLACK_MAX=" + slack};
  }
  return with_overrides(
      with_overrides(
          {"LD_PRELOAD=" + o.library, "HARMONIZE_MODE=harmonize",
           "HARMONIZE_REPORT=" + bench.report_path, "HARMONIZE_QUIET=1",
           "HARMONIZE_TEST_CLOCK_OFFSET=" + o.offset, "HARMONIZE_TEST_CLOCK_DRIFT=" + o.drift,
           "HARMONIZE_TEST_CLOCK_SEED=" + std::to_string(round + 1)},
          o.env),
      fixed);
}

// The sides of a run, interleaved in this order every round.
std::vector<std::string> sides(const Options& options) {
  std::vector<std::string> all{"native", "harmonize"};
  for (const std::string& slack : options.slacks) all.push_back("slack " + slack);
  return all;
}

// One job: its figures and the load at its end, or nothing if it failed.
std::optional<Result> measure(Bench& bench, const std::string& transport, const std::string& side,
                              int round) {
  std::vector<std::string> launcher_args;
  if (!transport.empty()) launcher_args = {"--mca", "btl", transport};
  std::vector<std::string> args = launch_command(
      bench.options.mpiexec, bench.flavor, 2, launcher_args, rank_environment(bench, side, round));
  args.insert(args.end(),
              {bench.self, std::string(kWorkerFlag), std::to_string(bench.options.calls),
               std::to_string(bench.options.warmup), describe(bench.options.work)});
  if (side != "native") bench.last_command = args;
  const Captured run = run_capture(args, bench.env);
  const auto load = load_average();  // before anything else runs
  auto result = run.status == 0 ? parse_result(run.output) : std::nullopt;
  if (!result) {
    std::fprintf(stderr, "harmonize-bench-barrier: '%s' failed (status %d)\n",
                 shell_joined(args).c_str(), run.status);
    return std::nullopt;
  }
  if (side != "native") add_library_view(bench.report_path, *result);
  if (load) (*result)["load"] = *load;
  return result;
}

// The rounds of one transport, the sides interleaved, the hogs spinning
// throughout. Nothing if the first round failed: it will not get better.
std::optional<Samples> run_rounds(Bench& bench, const std::string& transport, bool& all_ran) {
  const CpuHogs hogs(bench.options.hogs);
  if (hogs.running() < bench.options.hogs) {
    std::fprintf(stderr, "harmonize-bench-barrier: could start only %d of %d CPU hogs\n",
                 hogs.running(), bench.options.hogs);
    return std::nullopt;
  }
  Samples samples;
  for (int round = 0; round < bench.options.rounds; ++round) {
    for (const std::string& side : sides(bench.options)) {
      const auto result = measure(bench, transport, side, round);
      if (!result && round == 0) return std::nullopt;
      if (!result) {
        all_ran = false;
        continue;
      }
      for (const auto& [key, value] : *result) samples[side][key].push_back(value);
    }
  }
  return samples;
}

constexpr const char* kRowFormat =
    "%-11s %-12s %9s %9s %9s %9s %9s %9s %17s %11s %16s %8s %8s %9s %7s %9s %5s\n";

void print_rows(const std::string& label, const Options& options, Samples& samples) {
  const auto native_in_call = median(samples["native"]["in_call"]);
  for (const std::string& side : sides(options)) {
    auto& s = samples[side];
    const auto p50 = median(s["p50"]), p99 = median(s["p99"]), max = median(s["max"]);
    const auto in_call = median(s["in_call"]);
    if (!p50) {
      std::printf("%-11s %-12s %9s\n", label.c_str(), side.c_str(), "failed");
      continue;
    }
    const bool native = side == "native";
    const auto percent = [&](const char* key) {
      const auto rate = median(s[key]);
      char text[16];
      std::snprintf(text, sizeof text, "%.2f%%", rate ? 100 * *rate : 0.0);
      return native || !rate ? std::string("-") : std::string(text);
    };
    const auto duration = [&](const char* key) {
      const auto value = median(s[key]);
      return value && *value >= 0 ? nanoseconds(*value) : std::string("-");
    };
    // Every native call is valid (nothing flags it): its skew is all calls'.
    const std::string valid_p50 = native ? nanoseconds(*p50) : duration("valid_p50");
    const std::string valid_p99 = native ? nanoseconds(*p99) : duration("valid_p99");
    const auto above = median(s["valid_above_1us"]);
    char above_text[16];
    std::snprintf(above_text, sizeof above_text, "%.0f", above ? *above : 0.0);
    const std::string error = s["error_p50"].empty()
                                  ? std::string("-")
                                  : duration("error_p50") + " / " + duration("error_p99");
    const auto bound = median(s["bound"]);
    const std::string bound_text = bound ? "<= " + nanoseconds(*bound) : "-";
    const auto likely = median(s["likely"]);
    const std::string likely_out = percent("likely_out");
    const std::string likely_text =
        likely ? nanoseconds(*likely) + (likely_out == "-" ? "" : " (" + likely_out + ")") : "-";
    char ratio[16];
    std::snprintf(ratio, sizeof ratio, "%.2fx", native_in_call ? *in_call / *native_in_call : 0);
    const auto load = median(s["load"]);
    char load_text[16];
    std::snprintf(load_text, sizeof load_text, "%.2f", load ? *load : 0.0);
    std::printf(kRowFormat, label.c_str(), side.c_str(), nanoseconds(*p50).c_str(),
                nanoseconds(*p99).c_str(), nanoseconds(*max).c_str(), valid_p50.c_str(),
                valid_p99.c_str(), native ? "-" : above_text, native ? "-" : error.c_str(),
                native ? "-" : bound_text.c_str(), native ? "-" : likely_text.c_str(),
                percent("flagged").c_str(), percent("late").c_str(), nanoseconds(*in_call).c_str(),
                ratio, native ? "-" : duration("resync").c_str(), load ? load_text : "-");
  }
}

// What no barrier can beat here: before the rounds, as many threads as the
// ranks (2) spin on the clock for a second, beside the same hogs, and the
// gaps longer than the library's late-exit floor are counted. At most one
// thread per core this driver may run on: inside harmonize-lab it is pinned
// to its node's core (the ranks are on two), where two spinners would
// measure each other's time slices (50 % away).
int floor_spinners() {
  constexpr int kRanks = 2;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  const int cores = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 1;
  return std::clamp(cores, 1, kRanks);
}

void print_machine_floor(const Options& options) {
  constexpr double kSeconds = 1.0;
  const int spinners = floor_spinners();
  const CpuHogs hogs(options.hogs);
  const MachineFloor floor =
      measure_machine_floor(kSeconds, harmonize::logic::kLateExitFloor, spinners);
  std::printf(
      "# machine floor: %d thread%s spinning on the clock %.0f s beside %d CPU hog%s were away "
      "more than %s %.0f times a second, %.2f%% of the time (gaps p50 %s, p90 %s): an exit "
      "instant lands in such a gap with that chance, a late exit whatever the slack\n",
      spinners, spinners == 1 ? "" : "s", kSeconds, hogs.running(), hogs.running() == 1 ? "" : "s",
      nanoseconds(harmonize::logic::kLateExitFloor).c_str(), floor.per_second,
      100 * floor.away_share, nanoseconds(floor.gap_p50).c_str(),
      nanoseconds(floor.gap_p90).c_str());
}

// With --work, after a transport's rounds (the same minutes, the same hogs):
// threads doing the program's work, then spinning as long as the harmonized
// ranks spun at the median towards their deadlines, and how often either
// left later than the late-exit threshold. After a sleep a spin meets the
// scheduler more often than a spin alone, and more the longer it spins (on
// the VM, after 1 ms of sleep: 3 % at 1 us, 5 % at 10 us, 12 % at 30 us).
void print_work_floor(const Options& options, const std::string& label, Samples& samples) {
  if (options.work.kind == BetweenCalls::Kind::none) return;
  const auto spin = median(samples["harmonize"]["spin"]);
  if (!spin) return;
  constexpr double kSeconds = 2.0;
  const int spinners = floor_spinners();
  const CpuHogs hogs(options.hogs);
  const WorkFloor floor =
      measure_work_floor(options.work, *spin, kSeconds, harmonize::logic::kLateExitFloor, spinners);
  std::printf(
      "# %s floor after the work (%s): %d threads doing it, then spinning %s to a deadline "
      "(the harmonized side's median spin) beside %d CPU hog%s: %.2f%% of %ld iterations left "
      "late (either thread), the flagged share no slack avoids after this work\n",
      label.c_str(), describe(options.work).c_str(), spinners, nanoseconds(*spin).c_str(),
      hogs.running(), hogs.running() == 1 ? "" : "s", 100 * floor.late_share, floor.iterations);
}

void print_header(const Options& options) {
  std::printf(
      "# harmonize-bench-barrier: true exit skew of MPI_Barrier, 2 ranks, %ld calls after "
      "%.1f s warm-up, median of %d rounds\n# harmonized side on test clocks +-%s / "
      "+-%s; library %s\n",
      options.calls, options.warmup, options.rounds, options.offset.c_str(), options.drift.c_str(),
      options.library.c_str());
  if (!options.env.empty())
    std::printf("# harmonized side's extra environment: %s\n", joined(options.env).c_str());
  if (options.work.kind != BetweenCalls::Kind::none)
    std::printf("# between two barriers the program works: %s\n", describe(options.work).c_str());
  std::printf(
      "# %d CPU hogs spinning beside the ranks, %ld cores online; load: 1-minute load average "
      "after each run\n",
      options.hogs, sysconf(_SC_NPROCESSORS_ONLN));
  std::printf(
      "# skew: true exit skew (CLOCK_MONOTONIC) of all calls; valid: of the calls no rank "
      "flagged (MPIX_Harmonize_last_flag), >1us: how many of those exceed 1 us; clock err: the "
      "true error of the global clock at the exits (p50 / p99) beside the library's bound "
      "(p50); likely (out): its likely (99 %%) bound (p50) and the share of exits whose true "
      "error exceeded it; resync: seconds of resync per call\n");
  print_machine_floor(options);
  std::printf(kRowFormat, "transport", "side", "skew p50", "skew p99", "skew max", "valid p50",
              "valid p99", ">1us", "clock err", "bound", "likely (out)", "flagged", "late",
              "in call", "vs nat", "resync", "load");
}

int run_driver(int argc, char** argv) {
  Options options;
  bool help = false;
  if (const std::string error = parse_options(argc, argv, options, help); !error.empty()) {
    std::fprintf(stderr, "harmonize-bench-barrier: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  stop_children_on_signals();  // Ctrl-C must not leave jobs or hogs running
  const std::string self = executable_path();
  if (options.library.empty()) options.library = default_library(self);
  const Flavor flavor = detect_flavor(options.mpiexec);
  if (options.transports.empty()) {
    if (flavor == Flavor::openmpi)
      options.transports = {"vader,self", "tcp,self"};
    else
      options.transports = {""};
  }
  const ReportDir report_dir;
  if (!report_dir.ok()) {
    std::fprintf(stderr, "harmonize-bench-barrier: cannot create a temporary directory\n");
    return 1;
  }
  print_header(options);
  std::fflush(stdout);
  Bench bench{options, flavor, self, clean_environment(), report_dir.report(), {}};
  bool all_ran = true;
  for (const std::string& transport : options.transports) {
    auto samples = run_rounds(bench, transport, all_ran);
    if (!samples) return 1;
    const std::string label = transport.empty() ? "default" : transport;
    print_rows(label, options, *samples);
    print_work_floor(options, label, *samples);
    std::fflush(stdout);
  }
  std::printf("# reproduce: %s\n", shell_joined(reproduce_command(self, options)).c_str());
  std::printf("# one harmonized worker: %s\n", shell_joined(bench.last_command).c_str());
  return all_ran ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == kWorkerFlag) return run_worker(argc, argv);
  return run_driver(argc, argv);
}
