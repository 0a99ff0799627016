// harmonize-example: a small OSU-style collective latency benchmark.
//
// It stands in for the third-party benchmarks harmonize is preloaded into, so
// it is a plain MPI program (no harmonize code) and follows their recipe: warm
// up, then per iteration MPI_Barrier; t0 = MPI_Wtime(); collective; t1 = ...,
// and finally reduce each rank's average latency to avg/min/max over ranks.
// The barrier before each iteration is exactly what harmonize replaces.

// C API only: the deprecated C++ bindings that mpi.h would pull in do not
// compile warning-free, and nothing here uses them.
#include <mpi.h>

#include <getopt.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

enum class Collective { allreduce, bcast, reduce, alltoall, allgather, barrier };
// In the order of the values: the option's spelling, the MPI call's name.
constexpr struct {
  std::string_view option;
  const char* mpi;
} kCollectives[] = {{"allreduce", "MPI_Allreduce"}, {"bcast", "MPI_Bcast"},
                    {"reduce", "MPI_Reduce"},       {"alltoall", "MPI_Alltoall"},
                    {"allgather", "MPI_Allgather"}, {"barrier", "MPI_Barrier"}};

struct Options {
  Collective collective = Collective::allreduce;
  std::string collective_name = "allreduce";
  long min_size = 4;
  long max_size = 1024;
  long iterations = 1000;
  long warmup = 100;
  bool full = false;
  bool help = false;
};

constexpr long kLargestSize = 1L << 26;  // 64 MiB per buffer keeps 4 ranks within memory

const char* const kUsage =
    "usage: harmonize-example [options]\n"
    "  -c, --collective NAME    allreduce|bcast|reduce|alltoall|allgather|barrier (allreduce)\n"
    "  -m, --message-size [MIN:]MAX  message sizes in bytes, powers of two from MIN to MAX "
    "(4:1024)\n"
    "  -i, --iterations N       timed iterations per size (1000)\n"
    "  -x, --warmup N           untimed iterations per size (100)\n"
    "  -f, --full               also print min/max latency and iterations\n"
    "  -h, --help               this text\n";

std::optional<Collective> parse_collective(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kCollectives); ++i)
    if (kCollectives[i].option == name) return static_cast<Collective>(i);
  return std::nullopt;
}

std::optional<long> parse_count(const char* text, long smallest) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < smallest) return std::nullopt;
  return value;
}

bool parse_sizes(const char* text, Options& options) {
  const char* colon = std::strchr(text, ':');
  std::optional<long> min_size = options.min_size;
  std::optional<long> max_size;
  if (colon != nullptr) {
    min_size = parse_count(std::string(text, colon).c_str(), 1);
    max_size = parse_count(colon + 1, 1);
  } else {
    max_size = parse_count(text, 1);
  }
  if (!min_size || !max_size || *min_size > *max_size || *max_size > kLargestSize) return false;
  options.min_size = *min_size;
  options.max_size = *max_size;
  return true;
}

// The reason the command line is wrong, or "" when it is fine.
std::string parse_options(int argc, char** argv, Options& options) {
  const option long_options[] = {{"collective", required_argument, nullptr, 'c'},
                                 {"message-size", required_argument, nullptr, 'm'},
                                 {"iterations", required_argument, nullptr, 'i'},
                                 {"warmup", required_argument, nullptr, 'x'},
                                 {"full", no_argument, nullptr, 'f'},
                                 {"help", no_argument, nullptr, 'h'},
                                 {nullptr, 0, nullptr, 0}};
  opterr = 0;  // every rank parses; only rank 0 should complain
  int c = 0;
  while ((c = getopt_long(argc, argv, "c:m:i:x:fh", long_options, nullptr)) != -1) {
    switch (c) {
      case 'c': {
        const auto collective = parse_collective(optarg);
        if (!collective) return std::string("unknown collective '") + optarg + "'";
        options.collective = *collective;
        options.collective_name = optarg;
        break;
      }
      case 'm':
        if (!parse_sizes(optarg, options)) {
          return std::string("bad message size '") + optarg +
                 "' (want [MIN:]MAX, 1 <= MIN <= MAX <= " + std::to_string(kLargestSize) + ")";
        }
        break;
      case 'i': {
        const auto n = parse_count(optarg, 1);
        if (!n) return std::string("bad iteration count '") + optarg + "'";
        options.iterations = *n;
        break;
      }
      case 'x': {
        const auto n = parse_count(optarg, 0);
        if (!n) return std::string("bad warm-up count '") + optarg + "'";
        options.warmup = *n;
        break;
      }
      case 'f':
        options.full = true;
        break;
      case 'h':
        options.help = true;
        break;
      default:
        return std::string("unknown or incomplete option '") + argv[optind - 1] + "'";
    }
  }
  if (optind < argc) return std::string("unexpected argument '") + argv[optind] + "'";
  // Reductions work on floats, like OSU's: a message smaller than one float
  // has nothing to reduce.
  const bool reduction =
      options.collective == Collective::allreduce || options.collective == Collective::reduce;
  if (reduction && options.min_size < static_cast<long>(sizeof(float))) {
    options.min_size = sizeof(float);
    if (options.max_size < options.min_size) options.max_size = options.min_size;
  }
  return {};
}

const char* mpi_name(Collective collective) {
  return kCollectives[static_cast<std::size_t>(collective)].mpi;
}

// Buffers for one message size; alltoall/allgather move `size` bytes per rank.
struct Buffers {
  std::vector<char> send;
  std::vector<char> receive;
};

Buffers make_buffers(Collective collective, long size, int ranks) {
  const auto bytes = static_cast<std::size_t>(size);
  const bool per_rank = collective == Collective::alltoall || collective == Collective::allgather;
  const std::size_t total = per_rank ? bytes * static_cast<std::size_t>(ranks) : bytes;
  return {std::vector<char>(per_rank && collective == Collective::alltoall ? total : bytes, 1),
          std::vector<char>(total, 0)};
}

void run_collective(Collective collective, Buffers& b, long size, MPI_Comm comm) {
  const int count = static_cast<int>(size);
  switch (collective) {
    case Collective::allreduce:
      MPI_Allreduce(b.send.data(), b.receive.data(), count / static_cast<int>(sizeof(float)),
                    MPI_FLOAT, MPI_SUM, comm);
      break;
    case Collective::reduce:
      MPI_Reduce(b.send.data(), b.receive.data(), count / static_cast<int>(sizeof(float)),
                 MPI_FLOAT, MPI_SUM, 0, comm);
      break;
    case Collective::bcast:
      MPI_Bcast(b.send.data(), count, MPI_CHAR, 0, comm);
      break;
    case Collective::alltoall:
      MPI_Alltoall(b.send.data(), count, MPI_CHAR, b.receive.data(), count, MPI_CHAR, comm);
      break;
    case Collective::allgather:
      MPI_Allgather(b.send.data(), count, MPI_CHAR, b.receive.data(), count, MPI_CHAR, comm);
      break;
    case Collective::barrier:
      MPI_Barrier(comm);
      break;
  }
}

// Average latency of this rank over the timed iterations, in seconds.
double time_one_size(const Options& options, long size, MPI_Comm comm, int ranks) {
  Buffers buffers = make_buffers(options.collective, size, ranks);
  if (options.collective == Collective::allreduce || options.collective == Collective::reduce) {
    // Floats, so the reduction does not run on denormals or NaNs.
    std::vector<float> ones(static_cast<std::size_t>(size) / sizeof(float), 1.0f);
    std::memcpy(buffers.send.data(), ones.data(), ones.size() * sizeof(float));
  }
  double total = 0.0;
  for (long i = 0; i < options.warmup + options.iterations; ++i) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    run_collective(options.collective, buffers, size, comm);
    const double t1 = MPI_Wtime();
    if (i >= options.warmup) total += t1 - t0;
  }
  return total / static_cast<double>(options.iterations);
}

void print_header(const Options& options) {
  std::printf("# harmonize example benchmark: %s (OSU-style)\n", mpi_name(options.collective));
  if (options.full) {
    std::printf("%-10s%18s%18s%18s%12s\n", "# Size", "Avg Latency(us)", "Min Latency(us)",
                "Max Latency(us)", "Iterations");
  } else {
    std::printf("%-10s%18s\n", "# Size", "Avg Latency(us)");
  }
  std::fflush(stdout);
}

void print_row(const Options& options, long size, double avg, double min, double max) {
  if (options.full) {
    std::printf("%-10ld%18.2f%18.2f%18.2f%12ld\n", size, avg * 1e6, min * 1e6, max * 1e6,
                options.iterations);
  } else {
    std::printf("%-10ld%18.2f\n", size, avg * 1e6);
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  Options options;
  const std::string error = parse_options(argc, argv, options);
  if (!error.empty() || options.help) {
    if (rank == 0) {
      if (!error.empty()) std::fprintf(stderr, "harmonize-example: %s\n%s", error.c_str(), kUsage);
      if (options.help && error.empty()) std::fputs(kUsage, stdout);
    }
    MPI_Finalize();
    return error.empty() ? 0 : 2;
  }

  if (rank == 0) print_header(options);
  // A barrier has no message: one row, size 0.
  const bool sized = options.collective != Collective::barrier;
  for (long size = sized ? options.min_size : 0; size <= (sized ? options.max_size : 0);
       size = sized ? size * 2 : 1) {
    const double latency = time_one_size(options, size, MPI_COMM_WORLD, ranks);
    double min = 0.0;
    double max = 0.0;
    double sum = 0.0;
    MPI_Reduce(&latency, &min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&latency, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&latency, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) print_row(options, size, sum / ranks, min, max);
  }
  MPI_Finalize();
  return 0;
}
