#include "harmonize/session/registry.hpp"

#include <algorithm>
#include <vector>

#include "sync/mpi/mpi_error.hpp"

namespace harmonize {

Registry::Registry(Retire retire) : retire_(std::move(retire)) {
  sync::check_mpi(
      PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &Registry::delete_callback, &keyval_, this),
      "PMPI_Comm_create_keyval");
}

Registry::~Registry() {
  int finalized = 0;
  (void)PMPI_Finalized(&finalized);
  if (!finalized && keyval_ != MPI_KEYVAL_INVALID) (void)PMPI_Comm_free_keyval(&keyval_);
}

// Called by MPI (C code): nothing may be thrown through it.
int Registry::delete_callback(MPI_Comm, int, void* attribute, void* extra) {
  static_cast<Registry*>(extra)->drop(static_cast<CommState*>(attribute));
  return MPI_SUCCESS;
}

void Registry::drop(CommState* state) {
  bool at_finalize = false;
  {
    std::lock_guard lock(mutex_);
    live_.erase(state);
    at_finalize = finishing_;
  }
  retire_(*state, at_finalize);
  delete state;
}

CommState* Registry::find(MPI_Comm comm) const {
  void* attribute = nullptr;
  int found = 0;
  sync::check_mpi(PMPI_Comm_get_attr(comm, keyval_, &attribute, &found), "PMPI_Comm_get_attr");
  return found ? static_cast<CommState*>(attribute) : nullptr;
}

CommState* Registry::attach(MPI_Comm comm, std::unique_ptr<CommState> state) {
  sync::check_mpi(PMPI_Comm_set_attr(comm, keyval_, state.get()), "PMPI_Comm_set_attr");
  std::lock_guard lock(mutex_);
  live_.insert(state.get());
  return state.release();
}

std::vector<CommState*> Registry::alive_in_order() const {
  std::vector<CommState*> alive;
  {
    std::lock_guard lock(mutex_);
    alive.assign(live_.begin(), live_.end());
  }
  // Same order on every process (by key), since freeing communicators is
  // collective in principle.
  std::sort(alive.begin(), alive.end(),
            [](const CommState* a, const CommState* b) { return a->key < b->key; });
  return alive;
}

void Registry::retire_all() {
  {
    std::lock_guard lock(mutex_);
    finishing_ = true;
  }
  const std::vector<CommState*> alive = alive_in_order();
  // Failures here cannot be helped: the statistics are already safe, and
  // the communicators go with MPI_Finalize.
  for (CommState* state : alive) (void)PMPI_Comm_delete_attr(state->view.user, keyval_);
  (void)PMPI_Comm_free_keyval(&keyval_);
  keyval_ = MPI_KEYVAL_INVALID;
}

}  // namespace harmonize
