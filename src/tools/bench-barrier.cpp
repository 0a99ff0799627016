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

#include <dlfcn.h>
#include <mpi.h>
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

#include "tools/common/launch.hpp"

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

// argv: --worker CALLS WARMUP_SECONDS
int run_worker(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long calls = argc > 2 ? std::max(1L, std::atol(argv[2])) : 100000;
  const double warmup = argc > 3 ? std::atof(argv[3]) : 2.0;
  // Present only when the library is preloaded: the local flag of the last
  // harmonized barrier (0 = this process missed its deadline).
  using LastFlag = int (*)(MPI_Comm, int*);
  const auto last_flag =
      reinterpret_cast<LastFlag>(dlsym(RTLD_DEFAULT, "MPIX_Harmonize_last_flag"));

  // Warm-up for a time rank 0 decides: connections, slack, and the library's
  // first resyncs (which come quickly at first to learn the drift).
  const double start = now();
  for (int go = 1; go;) {
    for (int i = 0; i < 64; ++i) MPI_Barrier(MPI_COMM_WORLD);
    go = rank == 0 ? now() - start < warmup : 0;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }

  std::vector<double> exits(static_cast<std::size_t>(calls));
  std::vector<char> missed(static_cast<std::size_t>(calls), 0);
  double in_call = 0;
  for (long i = 0; i < calls; ++i) {
    const double entered = now();
    MPI_Barrier(MPI_COMM_WORLD);
    const double left = now();
    exits[static_cast<std::size_t>(i)] = left;
    in_call += left - entered;
    int flag = 1;
    if (last_flag != nullptr && last_flag(MPI_COMM_WORLD, &flag) == MPI_SUCCESS && flag == 0)
      missed[static_cast<std::size_t>(i)] = 1;
  }

  std::vector<double> all_exits(rank == 0 ? exits.size() * static_cast<std::size_t>(size) : 0);
  std::vector<char> all_missed(rank == 0 ? missed.size() * static_cast<std::size_t>(size) : 0);
  MPI_Gather(exits.data(), static_cast<int>(calls), MPI_DOUBLE, all_exits.data(),
             static_cast<int>(calls), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Gather(missed.data(), static_cast<int>(calls), MPI_CHAR, all_missed.data(),
             static_cast<int>(calls), MPI_CHAR, 0, MPI_COMM_WORLD);
  double in_call_total = 0;
  MPI_Reduce(&in_call, &in_call_total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::vector<double> skew(exits.size());
    long missed_any = 0;
    for (std::size_t c = 0; c < exits.size(); ++c) {
      double low = all_exits[c], high = all_exits[c];
      bool any = false;
      for (int r = 0; r < size; ++r) {
        const double t = all_exits[static_cast<std::size_t>(r) * exits.size() + c];
        low = std::min(low, t);
        high = std::max(high, t);
        any = any || all_missed[static_cast<std::size_t>(r) * exits.size() + c];
      }
      skew[c] = high - low;
      missed_any += any;
    }
    std::sort(skew.begin(), skew.end());
    std::printf("%.*s p50=%.9g p99=%.9g max=%.9g missed=%.9g in_call=%.9g\n",
                static_cast<int>(kResultTag.size()), kResultTag.data(), percentile(skew, 50),
                percentile(skew, 99), skew.back(),
                static_cast<double>(missed_any) / static_cast<double>(calls),
                in_call_total / static_cast<double>(calls * size));
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
};

using Result = std::map<std::string, double>;  // p50, p99, max, missed, in_call

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
  if (result.size() < 5) return std::nullopt;
  return result;
}

// What the library itself said about a harmonized run (its JSON report): the
// clock-error bound beside the skew, and late exits beside the misses.
void add_library_view(const std::string& report_path, Result& result) {
  std::ifstream in(report_path);
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  std::remove(report_path.c_str());
  if (report.is_discarded() || !report.contains("communicators")) return;
  for (const auto& comm : report["communicators"]) {
    if (comm.value("name", "") != "MPI_COMM_WORLD") continue;
    const double calls = comm.value("harmonized_calls", 0.0);
    result["bound"] = comm["clock_error_bound"].value("p50", 0.0);
    result["late"] = calls > 0 ? comm.value("late_calls_any", 0.0) / calls : 0.0;
  }
}

const char* const kUsage =
    "usage: harmonize-bench-barrier [--mpiexec PATH] [--library PATH] [--rounds N] [--calls N]\n"
    "                               [--warmup SECONDS] [--offset DURATION] [--drift PPM]\n"
    "                               [--btl LIST]...\n"
    "True exit skew of MPI_Barrier on 2 ranks, native vs harmonized (HARMONIZE_MODE=harmonize\n"
    "on test clocks), side by side. Open MPI: over shared memory and TCP unless --btl is given.\n"
    "Run it without mpiexec: it launches its own MPI jobs.\n";

std::string parse_options(int argc, char** argv, Options& options, bool& help) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "-h" || flag == "--help") {
      help = true;
      continue;
    }
    if (i + 1 >= argc) return "option " + std::string(flag) + " needs a value (or is unknown)";
    const char* value = argv[++i];
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
    } else if (const auto n = parse_positive(value); !n) {
      return "bad value '" + std::string(value) + "' for " + std::string(flag);
    } else if (flag == "--rounds") {
      options.rounds = static_cast<int>(std::min(*n, 100L));
    } else if (flag == "--calls") {
      options.calls = *n;
    } else {
      return "unknown option " + std::string(flag);
    }
  }
  return {};
}

std::string nanoseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, seconds < 1e-6 ? "%.0f ns" : "%.2f us",
                seconds < 1e-6 ? seconds * 1e9 : seconds * 1e6);
  return text;
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
  const std::string self = executable_path();
  if (options.library.empty()) options.library = default_library(self);
  const Flavor flavor = detect_flavor(options.mpiexec);
  if (options.transports.empty()) {
    if (flavor == Flavor::openmpi)
      options.transports = {"vader,self", "tcp,self"};
    else
      options.transports = {""};
  }
  const std::vector<std::string> env = clean_environment();
  std::printf(
      "# harmonize-bench-barrier: true exit skew of MPI_Barrier, 2 ranks, %ld calls after "
      "%.1f s warm-up, median of %d rounds\n# harmonized side on test clocks +-%s / "
      "+-%s; library %s\n",
      options.calls, options.warmup, options.rounds, options.offset.c_str(), options.drift.c_str(),
      options.library.c_str());
  std::printf("%-11s %-10s %10s %10s %10s %11s %9s %9s %13s %9s\n", "transport", "side", "skew p50",
              "skew p99", "skew max", "clock err", "missed", "late", "time in call", "vs native");
  char report_dir[] = "/tmp/harmonize-bench-XXXXXX";
  if (mkdtemp(report_dir) == nullptr) {
    std::fprintf(stderr, "harmonize-bench-barrier: cannot create a temporary directory\n");
    return 1;
  }
  const std::string report_path = std::string(report_dir) + "/report.json";
  std::fflush(stdout);
  bool all_ran = true;
  std::vector<std::string> last_command;
  for (const std::string& transport : options.transports) {
    std::vector<std::string> launcher_args;
    if (!transport.empty()) launcher_args = {"--mca", "btl", transport};
    std::map<std::string, std::map<std::string, std::vector<double>>> samples;
    for (int round = 0; round < options.rounds; ++round) {
      for (const std::string side : {"native", "harmonize"}) {
        std::vector<std::string> rank_environment;
        if (side == "harmonize") {
          rank_environment = {"LD_PRELOAD=" + options.library,
                              "HARMONIZE_MODE=harmonize",
                              "HARMONIZE_REPORT=" + report_path,
                              "HARMONIZE_QUIET=1",
                              "HARMONIZE_TEST_CLOCK_OFFSET=" + options.offset,
                              "HARMONIZE_TEST_CLOCK_DRIFT=" + options.drift,
                              "HARMONIZE_TEST_CLOCK_SEED=" + std::to_string(round + 1)};
        }
        std::vector<std::string> args =
            launch_command(options.mpiexec, flavor, 2, launcher_args, rank_environment);
        args.insert(args.end(), {self, std::string(kWorkerFlag), std::to_string(options.calls),
                                 std::to_string(options.warmup)});
        if (side == "harmonize") last_command = args;
        const Captured run = run_capture(args, env);
        auto result = run.status == 0 ? parse_result(run.output) : std::nullopt;
        if (result && side == "harmonize") add_library_view(report_path, *result);
        if (!result) {
          std::fprintf(stderr, "harmonize-bench-barrier: '%s' failed (status %d)\n",
                       joined(args).c_str(), run.status);
          if (round == 0) return 1;  // it will not get better: say so once
          all_ran = false;
          continue;
        }
        for (const auto& [key, value] : *result) samples[side][key].push_back(value);
      }
    }
    const std::string label = transport.empty() ? "default" : transport;
    const auto native_in_call = median(samples["native"]["in_call"]);
    for (const std::string side : {"native", "harmonize"}) {
      auto& s = samples[side];
      const auto p50 = median(s["p50"]), p99 = median(s["p99"]), max = median(s["max"]);
      const auto missed = median(s["missed"]), in_call = median(s["in_call"]);
      if (!p50) {
        std::printf("%-11s %-10s %10s\n", label.c_str(), side.c_str(), "failed");
        continue;
      }
      const auto percent = [](const std::optional<double>& rate) {
        char text[16];
        std::snprintf(text, sizeof text, "%.3f%%", rate ? 100 * *rate : 0.0);
        return std::string(rate ? text : "-");
      };
      const auto bound = median(s["bound"]);
      const std::string bound_text = bound ? "<= " + nanoseconds(*bound) : "-";
      char ratio[16];
      std::snprintf(ratio, sizeof ratio, "%.2fx", native_in_call ? *in_call / *native_in_call : 0);
      const bool native = side == "native";
      std::printf("%-11s %-10s %10s %10s %10s %11s %9s %9s %13s %9s\n", label.c_str(), side.c_str(),
                  nanoseconds(*p50).c_str(), nanoseconds(*p99).c_str(), nanoseconds(*max).c_str(),
                  native ? "-" : bound_text.c_str(), native ? "-" : percent(missed).c_str(),
                  native ? "-" : percent(median(s["late"])).c_str(), nanoseconds(*in_call).c_str(),
                  ratio);
    }
    std::fflush(stdout);
  }
  rmdir(report_dir);
  std::printf("# reproduce: %s --mpiexec %s --library %s --rounds %d --calls %ld\n", self.c_str(),
              options.mpiexec.c_str(), options.library.c_str(), options.rounds, options.calls);
  std::printf("# one harmonized worker: %s\n", joined(last_command).c_str());
  return all_ran ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == kWorkerFlag) return run_worker(argc, argv);
  return run_driver(argc, argv);
}
