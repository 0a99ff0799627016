#pragma once
// Communicator -> its CommState, through an MPI attribute, and nothing else.
// The attribute's delete callback hands the state back when the user frees
// the communicator (or at MPI_Finalize), so no state outlives its
// communicator. These attribute calls are the only PMPI calls of the
// session itself (docs/barrier.md, "Layers").
#include <mpi.h>

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "harmonize/session/comm_state.hpp"

namespace harmonize {

class Registry {
 public:
  // Called with every state that goes, and whether the user never freed its
  // communicator (MPI_Finalize). Must not throw.
  using Retire = std::function<void(const CommState& state, bool at_finalize)>;

  explicit Registry(Retire retire);  // throws MpiError
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The state attached to `comm`, or nullptr. Throws MpiError.
  CommState* find(MPI_Comm comm) const;
  // Throws MpiError (the state is then dropped).
  CommState* attach(MPI_Comm comm, std::unique_ptr<CommState> state);
  // Every state still attached, in the same order on every process.
  std::vector<CommState*> alive_in_order() const;
  // Retires every state still attached, in the same order on every process.
  void retire_all();

 private:
  static int delete_callback(MPI_Comm comm, int keyval, void* attribute, void* extra);
  void drop(CommState* state);

  Retire retire_;
  int keyval_ = MPI_KEYVAL_INVALID;
  mutable std::mutex mutex_;
  std::set<CommState*> live_;
  bool finishing_ = false;
};

}  // namespace harmonize
