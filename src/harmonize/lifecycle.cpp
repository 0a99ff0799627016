#include "harmonize/lifecycle.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "config/display.hpp"
#include "config/policy.hpp"
#include "config/variables.hpp"
#include "harmonize/collectives/mpi/comm_id.hpp"
#include "harmonize/logic/launch_check.hpp"
#include "harmonize/session.hpp"
#include "harmonize/startup/mpi_identity.hpp"
#include "harmonize/startup/startup_check.hpp"
#include "sync/mpi/comm_collectives.hpp"
#include "sync/mpi/gather.hpp"

namespace harmonize {
namespace {

struct Library {
  config::PolicyResult configuration;
  MPI_Comm world = MPI_COMM_NULL;  // private duplicate of MPI_COMM_WORLD; none in mode off
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
    // Values are the user's text: escaped and cut, one line each.
    std::fprintf(stderr, "harmonize:   %-28s = %-18s (%s)\n", name.c_str(),
                 config::display_value(result.effective.at(name)).c_str(),
                 config::display_value(result.origin.at(name)).c_str());
  }
}

void print_counters(const Library& library) {
  std::uint64_t mine[2] = {library.c_calls.load(), library.fortran_calls.load()};
  std::uint64_t total[2] = {mine[0], mine[1]};
  std::string who = "on rank " + std::to_string(library.rank);
  // Mode off makes no collective: there every rank speaks for itself.
  if (library.world != MPI_COMM_NULL && sync::sum_to_root(library.world, mine, total)) {
    if (library.rank != 0) return;
    who = "on " + std::to_string(library.size) + " ranks";
  }
  std::fprintf(stderr, "harmonize: intercepted %llu MPI_Barrier calls %s (C %llu, Fortran %llu)\n",
               static_cast<unsigned long long>(total[0] + total[1]), who.c_str(),
               static_cast<unsigned long long>(total[0]),
               static_cast<unsigned long long>(total[1]));
}

// Nothing thrown inside the library may reach the host program: every entry
// from the shims (C and Fortran) comes through one of these guards.
void report_internal_error(const char* where, const char* what) {
  std::fprintf(stderr, "harmonize: error: internal error in %s: %s\n", where, what);
  std::fflush(stderr);
}

template <typename Body>
int guarded(const char* where, int on_error, Body body) noexcept {
  try {
    return body();
  } catch (const std::exception& error) {
    report_internal_error(where, error.what());
  } catch (...) {
    report_internal_error(where, "unknown exception");
  }
  return on_error;
}

// `body`'s value, or nullopt when it throws (said like any internal error).
template <typename Body>
auto guarded_value(Body body) noexcept -> decltype(body()) {
  try {
    return body();
  } catch (const std::exception& error) {
    report_internal_error("MPI_Init", error.what());
  } catch (...) {
    report_internal_error("MPI_Init", "unknown exception");
  }
  return std::nullopt;
}

// Said by task 0 of the step only: the other singletons would repeat it.
void warn_if_separate_singletons(int world_size) {
  const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  const char* task = std::getenv("SLURM_PROCID");
  if (tasks == nullptr || (task != nullptr && std::strcmp(task, "0") != 0)) return;
#if defined(OPEN_MPI)
  constexpr bool open_mpi = true;
#else
  constexpr bool open_mpi = false;
#endif
  if (const auto warning = logic::separate_singletons(world_size, tasks, open_mpi)) {
    std::fprintf(stderr, "harmonize: warning: %s\n", warning->c_str());
    std::fflush(stderr);
  }
}

int initialize_unguarded() {
  if (g_library != nullptr) return MPI_SUCCESS;  // MPI_Init_thread after MPI_Init: MPI errs
  auto library = std::make_unique<Library>();
  const sync::CommFacts world = sync::describe_communicator(MPI_COMM_WORLD);
  library->rank = world.rank;
  library->size = world.size;
  warn_if_separate_singletons(world.size);
  library->configuration = config::load_policy_from_environment(library->rank == 0);
  const config::Policy& policy = library->configuration.policy;
  if (library->configuration.ok() && policy.mode == config::Mode::off) {
    // Pure pass-through: not a single collective, so ranks launched without
    // the library (or with another mode) can never be kept waiting.
    stop_alone_on_policy_errors(library->configuration);
  } else {
    library->world = join_private_world(policy.startup_timeout);
    stop_job_on_policy_errors(library->configuration, library->world);
    stop_job_on_policy_disagreement(library->configuration, library->world);
  }

  if (policy.verbose && library->rank == 0) print_configuration(library->configuration);
  library->session = Session::create(library->configuration, library->world);
  g_intercept_barrier = policy.verbose || policy.mode != config::Mode::off;
  g_collective_timer = library->session->collective_timer();
  g_library = library.release();
  g_global_wtime = policy.wtime == config::WtimeScope::global && policy.needs_clock();
  return MPI_SUCCESS;
}

void finalize_unguarded() {
  if (g_library == nullptr) return;
  g_intercept_barrier = false;
  g_global_wtime = false;
  g_collective_timer = nullptr;
  std::unique_ptr<Library> library(g_library);
  g_library = nullptr;
  try {
    library->session->finish();
    if (library->configuration.policy.verbose) print_counters(*library);
    library->session.reset();
  } catch (...) {
    // The others wait on the private world's last barrier: leave it all
    // the same, then let the guard report what went wrong.
    leave_private_world(library->world);
    throw;
  }
  leave_private_world(library->world);
}

}  // namespace

int initialize_library() noexcept {
  // The wrong build would hand its handles to another MPI: say so once per
  // process and stay out of the way (every entry point passes through).
  if (const auto wrong = guarded_value([] { return wrong_mpi_build(); })) {
    std::fprintf(stderr, "harmonize: error: %s\n", wrong->c_str());
    std::fflush(stderr);
    return MPI_SUCCESS;
  }
  const int status = guarded("MPI_Init", MPI_ERR_INTERN, initialize_unguarded);
  if (status != MPI_SUCCESS) {
    // The other ranks may be in the library's start-up collectives: a job
    // half set up can only be stopped, with the line above saying why.
    stop_job_before_it_runs();
  }
  return status;
}

void finalize_library() noexcept {
  guarded("MPI_Finalize", MPI_ERR_INTERN, [] {
    finalize_unguarded();
    return MPI_SUCCESS;
  });
}

int intercepted_barrier(MPI_Comm comm, Entry entry) noexcept {
  Library* library = g_library;
  if (library == nullptr) return sync::native_barrier(comm);
  (entry == Entry::c ? library->c_calls : library->fortran_calls)
      .fetch_add(1, std::memory_order_relaxed);
  return guarded("MPI_Barrier", MPI_ERR_INTERN, [&] { return library->session->barrier(comm); });
}

void communicator_freeing(MPI_Comm comm) noexcept {
  Library* library = g_library;
  if (library == nullptr || g_collective_timer == nullptr) return;
  guarded("MPI_Comm_free", MPI_ERR_INTERN, [&] {
    library->session->comm_freeing(comm);
    return MPI_SUCCESS;
  });
}

int harmonize_barrier(MPI_Comm comm, int* flag) noexcept {
  Library* library = g_library;
  if (library == nullptr) return MPI_ERR_OTHER;  // before MPI_Init or after MPI_Finalize
  return guarded("MPIX_Harmonize", MPI_ERR_INTERN,
                 [&] { return library->session->harmonize(comm, flag); });
}

int last_harmonize_flag(MPI_Comm comm, int* flag) noexcept {
  Library* library = g_library;
  if (library == nullptr) {
    if (flag != nullptr) *flag = -1;
    return MPI_SUCCESS;
  }
  return guarded("MPIX_Harmonize_last_flag", MPI_ERR_INTERN,
                 [&] { return library->session->last_flag(comm, flag); });
}

int global_time(double* time, double* bound) noexcept {
  Library* library = g_library;
  if (time == nullptr || bound == nullptr) return MPI_ERR_ARG;
  if (library == nullptr) return MPI_ERR_OTHER;  // before MPI_Init or after MPI_Finalize
  return guarded("MPIX_Harmonize_gettime", MPI_ERR_INTERN, [&] {
    return library->session->global_time(*time, *bound) ? MPI_SUCCESS : MPI_ERR_OTHER;
  });
}

double global_wtime() noexcept {
  Library* library = g_library;
  double time = 0;
  double bound = 0;
  try {
    if (library != nullptr && library->session->global_time(time, bound)) return time;
  } catch (...) {
    // Only a failed copy of the clock (no memory) can throw here: a time
    // is still owed, and the MPI library's own is the honest one.
  }
  return PMPI_Wtime();
}

}  // namespace harmonize
