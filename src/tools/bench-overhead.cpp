// harmonize-bench-overhead: what libharmonize costs an MPI call. By default
// an MPI_Barrier with the library preloaded but switched off
// (HARMONIZE_MODE=off), the promise being that an idle interposer is free;
// with --operation allreduce --mode observe, an 8-byte MPI_Allreduce timed by
// the collective timer (two clock reads and one record per call), printed
// beside the cost of one clock read; --operation iallreduce, its
// non-blocking form started and waited for; --operation p2p, an
// MPI_Irecv/MPI_Isend/MPI_Waitall exchange, per request: what the library's
// completing calls add to requests it does not follow.
//
// Run without mpiexec, it is the driver: it launches itself as workers through
// mpiexec, alternating native and preloaded runs so that machine noise (other
// jobs on a shared node) hits both sides alike, and prints the median of each
// side. A worker times N back-to-back barriers with clock_gettime.
//
// A plain MPI program: linking harmonize would measure the library under itself.

#include <mpi.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/common/launch.hpp"

namespace {

using namespace harmonize::tools;

constexpr std::string_view kWorkerFlag = "--worker";

// What a worker can time (--operation): its name and what the header calls
// it. p2p is timed per request (two per call).
struct Operation {
  std::string_view name;
  const char* what;
};
constexpr std::array kOperations{
    Operation{"barrier", "MPI_Barrier"},
    Operation{"allreduce", "MPI_Allreduce of 8 bytes"},
    Operation{"iallreduce", "MPI_Iallreduce of 8 bytes + MPI_Wait"},
    Operation{"p2p", "MPI_Irecv + MPI_Isend of 8 bytes + MPI_Waitall, per request"},
};
constexpr std::string_view kResultTag = "ns_per_call=";

// ---------------------------------------------------------------- worker

double now_ns() {
  return monotonic_seconds() * 1e9;
}

constexpr std::string_view kReadTag = "read_ns=";
constexpr std::string_view kTscTag = "tsc_ns=";

// The fastest of 10 batches of `per_batch` calls of `call`, in ns per call:
// on a shared node another process taking the core for a while inflates one
// batch, not the estimate. Both sides are measured the same way.
template <typename Call>
double fastest_batch(long per_batch, Call call) {
  constexpr long kBatches = 10;
  double per_call = 0.0;
  for (long batch = 0; batch < kBatches; ++batch) {
    const double start = now_ns();
    for (long i = 0; i < per_batch; ++i) call();
    const double batch_per_call = (now_ns() - start) / static_cast<double>(per_batch);
    per_call = batch == 0 ? batch_per_call : std::min(per_call, batch_per_call);
  }
  return per_call;
}

// argv: --worker self|world CALLS OPERATION (kOperations)
int run_worker(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const bool self = argc > 2 && std::string_view(argv[2]) == "self";
  const long calls = argc > 3 ? std::max(1L, std::atol(argv[3])) : 100000;
  const std::string_view operation = argc > 4 ? argv[4] : "barrier";
  MPI_Comm comm = self ? MPI_COMM_SELF : MPI_COMM_WORLD;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // The exchange's partner: itself on MPI_COMM_SELF, the other rank else.
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int partner = self ? 0 : (rank + 1) % size;
  double in = 1, out = 0;
  MPI_Request requests[2];
  MPI_Status statuses[2];
  const auto call = [&] {
    if (operation == "allreduce") {
      MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, comm);
    } else if (operation == "iallreduce") {
      MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, comm, &requests[0]);
      MPI_Wait(&requests[0], &statuses[0]);
    } else if (operation == "p2p") {
      MPI_Irecv(&out, 1, MPI_DOUBLE, partner, 0, comm, &requests[0]);
      MPI_Isend(&in, 1, MPI_DOUBLE, partner, 0, comm, &requests[1]);
      MPI_Waitall(2, requests, statuses);
    } else {
      MPI_Barrier(comm);
    }
  };

  // Warm-up: first calls pay for lazy initialisation (ours and the MPI's).
  for (long i = 0; i < calls / 10; ++i) call();
  const long per_batch = std::max(1L, calls / 10);
  PMPI_Barrier(MPI_COMM_WORLD);
  const double per_call = fastest_batch(per_batch, call) / (operation == "p2p" ? 2.0 : 1.0);
  // The floor of a timed call: one read of the clocks the library reads
  // (the TSC where it is invariant, else the time source).
  const double read = fastest_batch(per_batch, [] { (void)monotonic_seconds(); });
  double tsc = 0;
#if defined(__x86_64__) || defined(__i386__)
  volatile unsigned long long sink = 0;
  tsc = fastest_batch(per_batch, [&] { sink = __rdtsc(); });
#endif

  // The slowest rank is what a benchmark would see.
  double slowest = 0.0;
  PMPI_Reduce(&per_call, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%.*s%.3f %.*s%.3f %.*s%.3f\n", static_cast<int>(kResultTag.size()),
                kResultTag.data(), slowest, static_cast<int>(kReadTag.size()), kReadTag.data(),
                read, static_cast<int>(kTscTag.size()), kTscTag.data(), tsc);
  MPI_Finalize();
  return 0;
}

// ---------------------------------------------------------------- driver

struct Options {
  std::string mpiexec = "mpiexec";
  std::string library;  // default: ../lib/libharmonize.so next to this executable
  int rounds = 5;
  long self_calls = 2'000'000;
  long pair_calls = 200'000;
  std::string operation = "barrier";  // a name of kOperations
  std::string mode = "off";           // HARMONIZE_MODE of the preloaded side
  std::string trace;                  // HARMONIZE_TRACE of the preloaded side ("": none)
};

struct Case {
  const char* label;
  const char* comm;  // worker argument
  int ranks;
  long calls;
};

std::optional<double> parse_tagged(const std::string& output, std::string_view tag) {
  const auto at = output.find(tag);
  if (at == std::string::npos) return std::nullopt;
  return std::strtod(output.c_str() + at + tag.size(), nullptr);
}

// The launcher gets the preload through its own option, not LD_PRELOAD in its
// own environment: mpiexec itself must not load the library.
std::vector<std::string> command(const Options& options, Flavor flavor, const Case& c,
                                 const std::string& self_path, bool preload) {
  std::vector<std::string> rank_environment{"HARMONIZE_MODE=" + options.mode,
                                            "HARMONIZE_REPORT=none", "HARMONIZE_QUIET=1"};
  if (preload) rank_environment.push_back("LD_PRELOAD=" + options.library);
  if (preload && !options.trace.empty())
    rank_environment.push_back("HARMONIZE_TRACE=" + options.trace);
  std::vector<std::string> args =
      launch_command(options.mpiexec, flavor, c.ranks, {}, rank_environment);
  args.insert(args.end(), {self_path, std::string(kWorkerFlag), c.comm, std::to_string(c.calls),
                           options.operation});
  return args;
}

const char* const kUsage =
    "usage: harmonize-bench-overhead [--mpiexec PATH] [--library PATH] [--rounds N]\n"
    "                                [--self-calls N] [--pair-calls N]\n"
    "                                [--operation barrier|allreduce|iallreduce|p2p]\n"
    "                                [--mode off|observe] [--trace PATH]\n"
    "Measures the time libharmonize adds to MPI_Barrier in HARMONIZE_MODE=off, or to\n"
    "an 8-byte MPI_Allreduce (--operation allreduce), timed in mode observe, or its\n"
    "non-blocking form (iallreduce), or to each point-to-point request an\n"
    "MPI_Irecv/MPI_Isend/MPI_Waitall exchange makes (p2p); with --trace, with\n"
    "HARMONIZE_TRACE=PATH (a template: every run writes a timeline).\n"
    "Run it without mpiexec: it launches its own MPI jobs.\n";

const Operation* operation_named(std::string_view name) {
  for (const Operation& operation : kOperations)
    if (operation.name == name) return &operation;
  return nullptr;
}

// The reason the command line is wrong, or "".
std::string parse_options(int argc, char** argv, Options& options, bool& help) {
  return each_option(
      argc, argv, help, [&](std::string_view flag, const char* value) -> std::string {
        if (flag == "--mpiexec") {
          options.mpiexec = value;
        } else if (flag == "--library") {
          options.library = value;
        } else if (flag == "--operation") {
          options.operation = value;
          if (operation_named(options.operation) == nullptr)
            return "--operation is barrier, allreduce, iallreduce or p2p, not '" +
                   options.operation + "'";
        } else if (flag == "--trace") {
          options.trace = value;
        } else if (flag == "--mode") {
          options.mode = value;
          if (options.mode != "off" && options.mode != "observe" && options.mode != "harmonize")
            return "--mode is off, observe or harmonize, not '" + options.mode + "'";
        } else {
          const auto n = parse_positive(value);
          if (!n) return "bad value '" + std::string(value) + "' for " + std::string(flag);
          if (flag == "--rounds") {
            options.rounds = static_cast<int>(std::min(*n, 1000L));
          } else if (flag == "--self-calls") {
            options.self_calls = *n;
          } else if (flag == "--pair-calls") {
            options.pair_calls = *n;
          } else {
            return "unknown option " + std::string(flag);
          }
        }
        return {};
      });
}

std::string cell(std::optional<double> value) {
  char buffer[32];
  if (!value) return "failed";
  std::snprintf(buffer, sizeof buffer, "%.1f", *value);
  return buffer;
}

int run_driver(int argc, char** argv) {
  Options options;
  bool help = false;
  const std::string error = parse_options(argc, argv, options, help);
  if (!error.empty()) {
    std::fprintf(stderr, "harmonize-bench-overhead: %s\n%s", error.c_str(), kUsage);
    return 2;
  }
  if (help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::string self_path = executable_path();
  if (options.library.empty()) options.library = default_library(self_path);
  if (access(options.library.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "harmonize-bench-overhead: library %s: %s (use --library)\n",
                 options.library.c_str(), std::strerror(errno));
    return 2;
  }
  const Flavor flavor = detect_flavor(options.mpiexec);
  const std::vector<std::string> env = clean_environment();
  const std::vector<Case> cases{{"MPI_COMM_SELF, 1 rank", "self", 1, options.self_calls},
                                {"MPI_COMM_WORLD, 2 ranks", "world", 2, options.pair_calls}};

  const char* operation = operation_named(options.operation)->what;
  std::printf(
      "# harmonize-bench-overhead: %s, native vs libharmonize preloaded with "
      "HARMONIZE_MODE=%s\n# library %s, %d rounds alternating the sides; per run the fastest of "
      "10 batches, then the median over rounds\n",
      operation, options.mode.c_str(), options.library.c_str(), options.rounds);
  std::fflush(stdout);
  bool all_ran = true;
  std::vector<std::pair<std::optional<double>, std::optional<double>>> medians;
  std::vector<double> reads, tsc_reads;
  for (const Case& c : cases) {
    std::vector<double> native;
    std::vector<double> preloaded;
    for (int round = 0; round < options.rounds; ++round) {
      // Alternate which side goes first so a trend (e.g. a CPU clocking up)
      // does not favour one of them.
      for (int k = 0; k < 2; ++k) {
        const bool preload = (round + k) % 2 == 1;
        const auto args = command(options, flavor, c, self_path, preload);
        const Captured run = run_capture(args, env);
        const auto value = run.status == 0 ? parse_tagged(run.output, kResultTag) : std::nullopt;
        if (const auto read = parse_tagged(run.output, kReadTag))
          reads.push_back(read.value_or(0.0));
        if (const auto read = parse_tagged(run.output, kTscTag))
          tsc_reads.push_back(read.value_or(0.0));
        if (!value) {
          std::fprintf(stderr, "harmonize-bench-overhead: '%s' failed (status %d)\n",
                       joined(args).c_str(), run.status);
          all_ran = false;
          continue;
        }
        (preload ? preloaded : native).push_back(value.value_or(0.0));
      }
    }
    medians.emplace_back(median(native), median(preloaded));
  }

  std::printf("%-26s | %15s | %18s | %14s\n", "case", "native ns/call", "preloaded ns/call",
              "added ns/call");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& [native, preloaded] = medians[i];
    std::optional<double> added;
    if (native && preloaded) added = *preloaded - *native;
    std::printf("%-26s | %15s | %18s | %14s\n", cases[i].label, cell(native).c_str(),
                cell(preloaded).c_str(), cell(added).c_str());
  }
  if (const auto read = median(reads))
    std::printf(
        "# one read: clock_gettime(CLOCK_MONOTONIC) %.1f ns, TSC %.1f ns (a timed call "
        "reads the TSC twice where it is invariant)\n",
        read.value_or(0.0), median(tsc_reads).value_or(0.0));
  std::printf("# reproduce: %s", self_path.c_str());
  std::printf(
      " --mpiexec %s --library %s --rounds %d --self-calls %ld --pair-calls %ld --operation %s "
      "--mode %s%s%s\n",
      options.mpiexec.c_str(), options.library.c_str(), options.rounds, options.self_calls,
      options.pair_calls, options.operation.c_str(), options.mode.c_str(),
      options.trace.empty() ? "" : " --trace ", options.trace.c_str());
  std::printf("# one worker: %s\n",
              joined(command(options, flavor, cases[0], self_path, true)).c_str());
  return all_ran ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == kWorkerFlag) return run_worker(argc, argv);
  return run_driver(argc, argv);
}
