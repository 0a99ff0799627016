#pragma once
// The hot path shared by the C and Fortran collective entry points: two
// stamps around the call, one record after it. What the record needs besides
// the stamps (communicator, root, bytes) is computed after the exit stamp,
// outside the timed interval.
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "harmonize/collectives/mpi/comm_id.hpp"
#include "shim/reentrancy_guard.hpp"

namespace harmonize::shim {

// count x type size; 0 for an empty or invalid type (MPI reports that).
inline std::uint64_t bytes_of(long long count, MPI_Datatype type) {
  int size = 0;
  if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0) return 0;
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

inline int size_of(MPI_Comm comm) {
  int size = 0;
  return PMPI_Comm_size(comm, &size) == MPI_SUCCESS ? size : 0;
}

inline int rank_of(MPI_Comm comm) {
  int rank = 0;
  return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS ? rank : 0;
}

// Communicators freed through MPI_Comm_free so far: a handle may come back
// as another communicator's, so what was learnt of a handle before a free is
// learnt again after it.
inline std::atomic<std::uint64_t> g_communicators_freed{0};

#ifdef HARMONIZE_SMPI
inline thread_local MPI_Comm t_inter_comm = MPI_COMM_NULL;
inline thread_local bool t_inter = false;
inline thread_local std::uint64_t t_inter_frees = 0;
#else
inline thread_local MPI_Comm t_inter_comm __attribute__((tls_model("initial-exec"))) =
    MPI_COMM_NULL;
inline thread_local bool t_inter __attribute__((tls_model("initial-exec"))) = false;
inline thread_local std::uint64_t t_inter_frees __attribute__((tls_model("initial-exec"))) = 0;
#endif

// Whether `comm` (just used successfully) is an intercommunicator. Asked of
// MPI once per run of calls on one communicator (benchmarks call one
// communicator's collectives in a row): a call into MPI on every timed
// collective would cost more than the two stamps' budget allows.
inline bool is_intercommunicator(MPI_Comm comm) {
  const std::uint64_t frees = g_communicators_freed.load(std::memory_order_relaxed);
  if (comm != t_inter_comm || frees != t_inter_frees) {
    int flag = 0;
    t_inter = PMPI_Comm_test_inter(comm, &flag) == MPI_SUCCESS && flag != 0;
    t_inter_comm = comm;
    t_inter_frees = frees;
  }
  return t_inter;
}

// `call` returns the MPI status, returned as it is.
template <typename Comm, typename Root, typename Bytes, typename Call>
int timed(Collective operation, Comm comm, Root root, Bytes bytes, Call call) {
  collectives::CollectiveTimer* timer = g_collective_timer;
  if (timer == nullptr || !timer->times(operation)) return call();
  ReentrancyGuard guard;
  if (!guard.outermost()) return call();
  const double entry = timer->now();
  const int status = call();
  const double exit = timer->now();
  const MPI_Comm communicator = comm();
  // Only a handle the call accepted is asked about: asking about a bad one
  // would run the user's error handler a second time.
  const bool inter = status == MPI_SUCCESS && is_intercommunicator(communicator);
  timer->add({.entry = entry,
              .exit = exit,
              .bytes = bytes(),
              .comm = comm_id(communicator),
              .root = root(),
              .operation = operation,
              .inter = inter});
  return status;
}

// The timer's id of a request: its handle's bits (a pointer in Open MPI,
// an int in MPICH).
template <typename Handle>
collectives::RequestId request_id(Handle request) noexcept {
  static_assert(std::is_same_v<Handle, MPI_Request>);
  if constexpr (std::is_pointer_v<Handle>) {
    return collectives::RequestId{reinterpret_cast<std::uintptr_t>(request)};
  } else {
    return collectives::RequestId{static_cast<std::uintptr_t>(request)};
  }
}

// A non-blocking collective's start: stamped around the start call and
// recorded with its request, which a completing call (MPI_Wait, MPI_Test,
// ...: request_entry_points.cpp) ends. `call` returns the MPI status.
template <typename Comm, typename Root, typename Bytes, typename Call>
int started(Collective operation, Comm comm, Root root, Bytes bytes, const MPI_Request* request,
            Call call) {
  collectives::CollectiveTimer* timer = g_collective_timer;
  if (timer == nullptr || !timer->times(operation)) return call();
  ReentrancyGuard guard;
  if (!guard.outermost()) return call();
  const double entry = timer->now();
  const int status = call();
  const double start_return = timer->now();
  const MPI_Comm communicator = comm();
  const bool ok = status == MPI_SUCCESS && request != nullptr && *request != MPI_REQUEST_NULL;
  // A failed start is still recorded (untracked): every member's i-th
  // record must be the same call.
  timer->start({.entry = entry,
                .bytes = bytes(),
                .comm = comm_id(communicator),
                .root = root(),
                .operation = operation,
                .inter = ok && is_intercommunicator(communicator)},
               start_return, ok ? request_id(*request) : collectives::RequestId{}, ok);
  return status;
}

}  // namespace harmonize::shim
