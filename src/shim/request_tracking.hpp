#pragma once
// Where a non-blocking collective's start meets its end, shared by the C
// (request_entry_points.cpp) and Fortran (fortran_request_entry_points.cpp)
// completing calls. While no non-blocking collective is open, a completing
// call passes straight through after one load; otherwise the requests given
// are looked up before the call (a completed request comes back as
// MPI_REQUEST_NULL, its handle gone) and the ones that came back null were
// completed by it. Requests the library does not follow are never touched.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "common/per_thread.hpp"
#include "shim/timed_call.hpp"

namespace harmonize::shim {

// A followed request among those a call was given: its place and slot.
struct Watched {
  int index = 0;
  std::uint32_t slot = collectives::RequestIndex::kNone;
};

HARMONIZE_PER_THREAD inline std::vector<Watched> t_watched;

// `call` (returns the MPI status) may complete any of `count` requests:
// `handle(i)` is the i-th as a C handle (MPI_REQUEST_NULL: none), and
// `ended(i)`, asked after the call, whether it came back null.
template <typename Handle, typename Ended, typename Call>
int completing(int count, Handle handle, Ended ended, Call call) {
  collectives::CollectiveTimer* timer = g_collective_timer;
  if (timer == nullptr || !timer->tracking() || count <= 0) return call();
  ReentrancyGuard guard;
  if (!guard.outermost()) return call();
  const double entry = timer->now();
  std::vector<Watched>& watched = t_watched;
  watched.clear();
  for (int i = 0; i < count; ++i) {
    const MPI_Request request = handle(i);
    if (request == MPI_REQUEST_NULL) continue;
    const std::uint32_t slot = timer->find(request_id(request));
    if (slot == collectives::RequestIndex::kNone) continue;
    try {
      watched.push_back({i, slot});
    } catch (...) {
      // Out of memory: this one stays open until its communicator's calls
      // are matched (Ending::open_at_matching), counted there.
    }
  }
  if (watched.empty()) return call();
  const int status = call();
  const double exit = timer->now();
  for (const Watched& w : watched)
    if (ended(w.index)) timer->complete(w.slot, entry, exit);
  return status;
}

// `call` (returns the MPI status) frees (`cancel`: cancels) the request
// whose C handle is `request`.
template <typename Call>
int ending(MPI_Request request, bool cancel, Call call) {
  collectives::CollectiveTimer* timer = g_collective_timer;
  if (timer == nullptr || !timer->tracking() || request == MPI_REQUEST_NULL) return call();
  ReentrancyGuard guard;
  if (!guard.outermost()) return call();
  const std::uint32_t slot = timer->find(request_id(request));
  const int status = call();
  if (slot == collectives::RequestIndex::kNone || status != MPI_SUCCESS) return status;
  if (cancel) {
    timer->cancelled(slot);
  } else {
    timer->freed(slot);
  }
  return status;
}

}  // namespace harmonize::shim
