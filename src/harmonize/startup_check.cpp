#include "harmonize/startup_check.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <thread>
#include <vector>

#include "config/variables.hpp"

namespace harmonize {

namespace {

void abort_with(const std::vector<std::string>& errors) {
  for (const std::string& error : errors) {
    std::fprintf(stderr, "harmonize: error: %s\n", error.c_str());
  }
  std::fprintf(stderr, "harmonize: error: stopping the job before it runs (exit status 2)\n");
  std::fflush(stderr);
  // Give the launcher a moment to forward the lines: MPICH's Hydra tears the
  // job down on abort and may drop output still in flight.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  PMPI_Abort(MPI_COMM_WORLD, 2);
}

// FNV-1a: equal texts give equal numbers on every rank.
std::uint64_t text_hash(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ULL;
  return hash;
}

bool must_agree(std::string_view name) {
  // Only rank 0 writes the report and the summary; a preset path may differ
  // while its contents (checked through the variables it sets) agree.
  return name != "HARMONIZE_REPORT" && name != "HARMONIZE_QUIET" && name != "HARMONIZE_CONFIG";
}

}  // namespace

void stop_job_on_policy_disagreement(const config::PolicyResult& result, MPI_Comm comm) {
  std::vector<std::string> names;
  std::vector<std::uint64_t> hashes;
  for (const config::Variable& variable : config::all_variables()) {
    if (!must_agree(variable.name)) continue;
    names.emplace_back(variable.name);
    hashes.push_back(text_hash(result.effective.at(names.back())));
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

}  // namespace harmonize
