#pragma once
// The collective timer as the shim sees it: the pure timer
// (collectives/collective_timer.hpp) knows communicators by ids, made here
// of MPI handles, and the shim finds it through one global.
#include <mpi.h>

#include <cstdint>
#include <type_traits>

#include "harmonize/collectives/collective_timer.hpp"

namespace harmonize {

// The timer's id of a communicator: its handle's bits, whether the MPI
// library's handles are pointers (Open MPI) or ints (MPICH). A template so
// that only the branch for this MPI's handles is compiled.
template <typename Handle>
collectives::CommId comm_id(Handle comm) noexcept {
  static_assert(std::is_same_v<Handle, MPI_Comm>);
  if constexpr (std::is_pointer_v<Handle>) {
    return collectives::CommId{reinterpret_cast<std::uintptr_t>(comm)};
  } else {
    return collectives::CommId{static_cast<std::uintptr_t>(comm)};
  }
}

// Set between MPI_Init and MPI_Finalize when collectives are timed; read by
// the shim on every collective (null: pass straight through).
inline collectives::CollectiveTimer* g_collective_timer = nullptr;

}  // namespace harmonize
