#include "harmonize/lifecycle.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "config/policy.hpp"
#include "config/variables.hpp"
#include "harmonize/session.hpp"
#include "harmonize/startup_check.hpp"
#include "sync/mpi/mpi_transport.hpp"

namespace harmonize {
namespace {

struct Library {
  config::PolicyResult configuration;
  MPI_Comm world = MPI_COMM_NULL;  // private duplicate of MPI_COMM_WORLD
  int rank = 0;
  int size = 1;
  std::atomic<std::uint64_t> c_calls{0};
  std::atomic<std::uint64_t> fortran_calls{0};
  std::unique_ptr<Session> session;
};

// Deliberately leaked when MPI_Finalize never comes: a destructor at exit
// would call MPI after the runtime is gone.
Library* g_library = nullptr;

void print_configuration(const config::PolicyResult& result) {
  std::fprintf(stderr, "harmonize: effective configuration:\n");
  for (const config::Variable& variable : config::all_variables()) {
    const std::string name(variable.name);
    std::fprintf(stderr, "harmonize:   %-28s = %-18s (%s)\n", name.c_str(),
                 result.effective.at(name).c_str(), result.origin.at(name).c_str());
  }
}

void print_counters(const Library& library) {
  std::uint64_t mine[2] = {library.c_calls.load(), library.fortran_calls.load()};
  std::uint64_t total[2] = {0, 0};
  PMPI_Reduce(mine, total, 2, MPI_UINT64_T, MPI_SUM, 0, library.world);
  if (library.rank == 0) {
    std::fprintf(stderr,
                 "harmonize: intercepted %llu MPI_Barrier calls on %d ranks (C %llu, Fortran "
                 "%llu)\n",
                 static_cast<unsigned long long>(total[0] + total[1]), library.size,
                 static_cast<unsigned long long>(total[0]),
                 static_cast<unsigned long long>(total[1]));
  }
}

}  // namespace

int initialize_library() {
  if (g_library != nullptr) return MPI_SUCCESS;  // MPI_Init_thread after MPI_Init: MPI errs
  auto library = std::make_unique<Library>();
  library->configuration = config::load_policy_from_environment();
  library->world = sync::private_copy(MPI_COMM_WORLD);
  PMPI_Comm_set_name(library->world, "harmonize-private-world");
  PMPI_Comm_rank(library->world, &library->rank);
  PMPI_Comm_size(library->world, &library->size);
  stop_job_on_policy_errors(library->configuration, library->world);
  stop_job_on_policy_disagreement(library->configuration, library->world);

  const config::Policy& policy = library->configuration.policy;
  if (policy.verbose && library->rank == 0) print_configuration(library->configuration);
  library->session = Session::create(library->configuration, library->world);
  g_intercept_barrier = policy.verbose || policy.mode != config::Mode::off;
  g_library = library.release();
  return MPI_SUCCESS;
}

void finalize_library() {
  if (g_library == nullptr) return;
  g_intercept_barrier = false;
  std::unique_ptr<Library> library(g_library);
  g_library = nullptr;
  library->session->finish();
  if (library->configuration.policy.verbose) print_counters(*library);
  library->session.reset();
  PMPI_Comm_free(&library->world);
}

int intercepted_barrier(MPI_Comm comm, Entry entry) {
  Library* library = g_library;
  if (library == nullptr) return PMPI_Barrier(comm);
  (entry == Entry::c ? library->c_calls : library->fortran_calls)
      .fetch_add(1, std::memory_order_relaxed);
  return library->session->barrier(comm);
}

int harmonize_barrier(MPI_Comm comm, int* flag) {
  Library* library = g_library;
  if (library == nullptr) return MPI_ERR_OTHER;  // before MPI_Init or after MPI_Finalize
  return library->session->harmonize(comm, flag);
}

int last_harmonize_flag(MPI_Comm comm, int* flag) {
  Library* library = g_library;
  if (library == nullptr) {
    if (flag != nullptr) *flag = -1;
    return MPI_SUCCESS;
  }
  return library->session->last_flag(comm, flag);
}

}  // namespace harmonize
