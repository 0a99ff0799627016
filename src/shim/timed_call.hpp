#pragma once
// The hot path shared by the C and Fortran collective entry points: two
// stamps around the call, one record after it. What the record needs besides
// the stamps (communicator, root, bytes) is computed after the exit stamp,
// outside the timed interval.
#include <mpi.h>

#include <atomic>
#include <cstdint>

#include "common/per_thread.hpp"
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

HARMONIZE_PER_THREAD inline MPI_Comm t_inter_comm = MPI_COMM_NULL;
HARMONIZE_PER_THREAD inline bool t_inter = false;
HARMONIZE_PER_THREAD inline std::uint64_t t_inter_frees = 0;

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

// The two stamps around `call` (returns the MPI status, returned as it is)
// of a timed `operation`, handed to `record(timer, entry, exit, status)`
// after the second one.
template <typename Call, typename Record>
int stamped(Collective operation, Call call, Record record) {
  collectives::CollectiveTimer* timer = g_collective_timer;
  if (timer == nullptr || !timer->times(operation)) return call();
  ReentrancyGuard guard;
  if (!guard.outermost()) return call();
  const double entry = timer->now();
  const int status = call();
  const double exit = timer->now();
  record(*timer, entry, exit, status);
  return status;
}

// A call's record. Only a communicator the call `accepted` is asked whether
// it is an intercommunicator: asking about a bad one would run the user's
// error handler a second time.
template <typename Comm, typename Root, typename Bytes>
collectives::TimedCall record_of(Collective operation, Comm comm, Root root, Bytes bytes,
                                 double entry, double exit, bool accepted) {
  const MPI_Comm communicator = comm();
  const bool inter = accepted && is_intercommunicator(communicator);
  return {.entry = entry,
          .exit = exit,
          .bytes = bytes(),
          .comm = comm_id(communicator),
          .root = root(),
          .operation = operation,
          .inter = inter};
}

// A blocking collective: stamped at entry and exit.
template <typename Comm, typename Root, typename Bytes, typename Call>
int timed(Collective operation, Comm comm, Root root, Bytes bytes, Call call) {
  return stamped(
      operation, call,
      [&](collectives::CollectiveTimer& timer, double entry, double exit, int status) {
        timer.add(record_of(operation, comm, root, bytes, entry, exit, status == MPI_SUCCESS));
      });
}

// A non-blocking collective's start: stamped around the start call and
// recorded with its request, which a completing call (MPI_Wait, MPI_Test,
// ...: request_entry_points.cpp) ends.
template <typename Comm, typename Root, typename Bytes, typename Call>
int started(Collective operation, Comm comm, Root root, Bytes bytes, const MPI_Request* request,
            Call call) {
  return stamped(
      operation, call,
      [&](collectives::CollectiveTimer& timer, double entry, double start_return, int status) {
        const bool ok = status == MPI_SUCCESS && request != nullptr && *request != MPI_REQUEST_NULL;
        // A failed start is still recorded (untracked): every member's i-th
        // record must be the same call.
        timer.start(record_of(operation, comm, root, bytes, entry, 0, ok), start_return,
                    ok ? request_id(*request) : collectives::RequestId{}, ok);
      });
}

}  // namespace harmonize::shim

// A signature's (parameters) or (arguments) without their parentheses, to
// append a request or an ierror: HARMONIZE_UNPAREN (a, b) is a, b.
#define HARMONIZE_UNPAREN(...) __VA_ARGS__
