#pragma once
// The collective timer as the shim sees it: the pure timer
// (collectives/collective_timer.hpp) knows communicators by ids, made here
// of MPI handles, and the shim finds it through one global.
#include <mpi.h>

#include <cstdint>
#include <type_traits>

#include "harmonize/collectives/collective_timer.hpp"

namespace harmonize {

// An MPI handle's bits, whether the MPI library's handles are pointers
// (Open MPI) or ints (MPICH). A template so that only the branch for this
// MPI's handles is compiled.
template <typename Handle>
std::uintptr_t handle_bits(Handle handle) noexcept {
  if constexpr (std::is_pointer_v<Handle>) {
    return reinterpret_cast<std::uintptr_t>(handle);
  } else {
    return static_cast<std::uintptr_t>(handle);
  }
}

// The timer's id of a communicator, and of a request.
inline collectives::CommId comm_id(MPI_Comm comm) noexcept {
  return collectives::CommId{handle_bits(comm)};
}
inline collectives::RequestId request_id(MPI_Request request) noexcept {
  return collectives::RequestId{handle_bits(request)};
}

// Set between MPI_Init and MPI_Finalize when collectives are timed; read by
// the shim on every collective (null: pass straight through).
inline collectives::CollectiveTimer* g_collective_timer = nullptr;

}  // namespace harmonize
