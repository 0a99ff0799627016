#include "harmonize/startup/startup_check.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <thread>
#include <vector>

#include "common/fnv1a.hpp"
#include "config/variables.hpp"
#include "report/format.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize {

namespace {

void abort_with(const std::vector<std::string>& errors) {
  // A preset of thousands of bad lines must not bury the terminal.
  constexpr std::size_t kMostLines = 10;
  for (std::size_t i = 0; i < errors.size() && i < kMostLines; ++i) {
    std::fprintf(stderr, "harmonize: error: %s\n", errors[i].c_str());
  }
  if (errors.size() > kMostLines) {
    std::fprintf(stderr, "harmonize: error: ... and %zu more errors like these\n",
                 errors.size() - kMostLines);
  }
  stop_job_before_it_runs();
}

bool must_agree(std::string_view name) {
  // Only rank 0 writes the report and the summary; a preset path may differ
  // while its contents (checked through the variables it sets) agree.
  return name != "HARMONIZE_REPORT" && name != "HARMONIZE_QUIET" && name != "HARMONIZE_CONFIG";
}

}  // namespace

void stop_job_before_it_runs() {
  std::fprintf(stderr, "harmonize: error: stopping the job before it runs (exit status 2)\n");
  std::fflush(stderr);
  // Give the launcher a moment to forward the lines: MPICH's Hydra tears the
  // job down on abort and may drop output still in flight.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  PMPI_Abort(MPI_COMM_WORLD, 2);
}

void leave_private_world(MPI_Comm& world) {
  if (world == MPI_COMM_NULL) return;
  // Nobody finalizes while another still has library traffic to consume:
  // MPICH over UCX's TCP transport hung in MPI_Finalize (a rank flushing an
  // endpoint whose peer had gone on to the runtime's fence) without it.
  // At MPI_Finalize a failure changes nothing: the runtime goes next.
  (void)PMPI_Barrier(world);
  (void)PMPI_Comm_free(&world);
}

MPI_Comm join_private_world(double timeout_seconds) {
  MPI_Comm world = MPI_COMM_NULL;
#ifdef HARMONIZE_SMPI
  // SMPI lacks MPI_Comm_idup, and needs no watch: the library is linked into
  // the one simulated program, every rank has it.
  const int status = PMPI_Comm_dup(MPI_COMM_WORLD, &world);
  (void)timeout_seconds;
#else
  MPI_Request request = MPI_REQUEST_NULL;
  int status = PMPI_Comm_idup(MPI_COMM_WORLD, &world, &request);
  const auto start = std::chrono::steady_clock::now();
  const auto limit = std::chrono::duration<double>(timeout_seconds);
  for (int done = 0; status == MPI_SUCCESS && !done;) {
    status = PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done || status != MPI_SUCCESS) break;
    if (std::chrono::steady_clock::now() - start > limit) {
      int size = 1;
      (void)PMPI_Comm_size(MPI_COMM_WORLD, &size);
      abort_with({"MPI_Init waited " + report::format_duration(timeout_seconds) +
                  " (HARMONIZE_STARTUP_TIMEOUT) for all " + std::to_string(size) +
                  " ranks to load the library, and some never did: LD_PRELOAD reached only "
                  "some ranks (or some run with HARMONIZE_MODE=off). With Open MPI, '-x "
                  "LD_PRELOAD=...' before the first ':' applies "
                  "to that app context only; put it in every context (MPICH: -genv), or launch "
                  "with scripts/harmonize-run"});
    }
    // Sleep rather than spin: a rank that is still starting may need the core.
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
#endif
  if (status != MPI_SUCCESS) {
    abort_with({"MPI_Init: the library cannot make its private copy of MPI_COMM_WORLD (" +
                sync::describe_mpi_error("PMPI_Comm_idup", status) + ")"});
  }
  // Our failures are reported by us, never through the user's handler.
  (void)PMPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
  (void)PMPI_Comm_set_name(world, "harmonize-private-world");
  return world;
}

void stop_alone_on_policy_errors(const config::PolicyResult& result) {
  if (result.ok()) return;
  int rank = 0;
  (void)PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Rank 0 speaks and takes the job down; a rank alone in its error (another
  // environment) speaks after a moment in which rank 0 would have.
  if (rank != 0) std::this_thread::sleep_for(std::chrono::seconds(2));
  abort_with(result.errors);
}

void stop_job_on_policy_disagreement(const config::PolicyResult& result, MPI_Comm comm) {
  // Parsed values are compared, not their spelling: "20us" on one rank and
  // "20000ns" on another run the same policy.
  auto canonical = [&](const std::string& name) -> const std::string& {
    const auto it = result.canonical.find(name);
    return it != result.canonical.end() ? it->second : result.effective.at(name);
  };
  std::vector<std::string> names;
  std::vector<std::uint64_t> hashes;
  for (const config::Variable& variable : config::all_variables()) {
    if (!must_agree(variable.name)) continue;
    names.emplace_back(variable.name);
    hashes.push_back(fnv1a(canonical(names.back())));
  }
  std::vector<std::uint64_t> lowest(hashes.size()), highest(hashes.size());
  const int count = static_cast<int>(hashes.size());
  PMPI_Allreduce(hashes.data(), lowest.data(), count, MPI_UINT64_T, MPI_MIN, comm);
  PMPI_Allreduce(hashes.data(), highest.data(), count, MPI_UINT64_T, MPI_MAX, comm);
  std::vector<std::string> errors;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (lowest[i] == highest[i]) continue;
    errors.push_back(names[i] + " differs between ranks (rank 0 has '" +
                     result.effective.at(names[i]) +
                     "'): every rank must run with the same HARMONIZE_* configuration");
  }
  if (errors.empty()) return;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank == 0) abort_with(errors);
  PMPI_Barrier(comm);  // never completes: rank 0 takes the job down
  PMPI_Abort(MPI_COMM_WORLD, 2);
}

void stop_job_on_policy_errors(const config::PolicyResult& result, MPI_Comm comm) {
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  // Ranks normally share one environment; should they differ, the lowest
  // failing rank speaks so that the message is printed exactly once.
  const int mine = result.ok() ? size : rank;
  int first_failing = size;
  PMPI_Allreduce(&mine, &first_failing, 1, MPI_INT, MPI_MIN, comm);
  if (first_failing == size) return;
  if (rank == first_failing) abort_with(result.errors);
  // Never returns in practice: the aborting rank takes the job down.
  PMPI_Barrier(comm);
  PMPI_Abort(MPI_COMM_WORLD, 2);
}

void stop_on_policy_errors(const config::PolicyResult& result, MPI_Comm world) {
  if (world == MPI_COMM_NULL) {
    stop_alone_on_policy_errors(result);
  } else {
    stop_job_on_policy_errors(result, world);
  }
}

}  // namespace harmonize
