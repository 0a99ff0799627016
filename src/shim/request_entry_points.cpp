// The C calls that complete requests (MPI_Wait, MPI_Test and their any,
// some and all forms), free them (MPI_Request_free) or cancel them
// (MPI_Cancel): where a non-blocking collective ends (request_tracking.hpp).
#include <mpi.h>

#include "shim/export.hpp"
#include "shim/request_tracking.hpp"

namespace {

// `call` may complete any of `requests[0, count)`.
template <typename Call>
int completing(MPI_Request requests[], int count, Call call) {
  if (requests == nullptr) return call();
  return harmonize::shim::completing(
      count, [requests](int i) { return requests[i]; },
      [requests](int i) { return requests[i] == MPI_REQUEST_NULL; }, call);
}

template <typename Call>
int ending(const MPI_Request* request, bool cancel, Call call) {
  if (request == nullptr) return call();
  return harmonize::shim::ending(*request, cancel, call);
}

}  // namespace

HARMONIZE_EXPORT int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  return completing(request, 1, [&] { return PMPI_Wait(request, status); });
}

HARMONIZE_EXPORT int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return completing(request, 1, [&] { return PMPI_Test(request, flag, status); });
}

HARMONIZE_EXPORT int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return completing(requests, count, [&] { return PMPI_Waitall(count, requests, statuses); });
}

HARMONIZE_EXPORT int MPI_Testall(int count, MPI_Request requests[], int* flag,
                                 MPI_Status statuses[]) {
  return completing(requests, count, [&] { return PMPI_Testall(count, requests, flag, statuses); });
}

HARMONIZE_EXPORT int MPI_Waitany(int count, MPI_Request requests[], int* index,
                                 MPI_Status* status) {
  return completing(requests, count, [&] { return PMPI_Waitany(count, requests, index, status); });
}

HARMONIZE_EXPORT int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag,
                                 MPI_Status* status) {
  return completing(requests, count,
                    [&] { return PMPI_Testany(count, requests, index, flag, status); });
}

HARMONIZE_EXPORT int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                                  MPI_Status statuses[]) {
  return completing(requests, incount,
                    [&] { return PMPI_Waitsome(incount, requests, outcount, indices, statuses); });
}

HARMONIZE_EXPORT int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                                  MPI_Status statuses[]) {
  return completing(requests, incount,
                    [&] { return PMPI_Testsome(incount, requests, outcount, indices, statuses); });
}

HARMONIZE_EXPORT int MPI_Request_free(MPI_Request* request) {
  return ending(request, false, [&] { return PMPI_Request_free(request); });
}

HARMONIZE_EXPORT int MPI_Cancel(MPI_Request* request) {
  return ending(request, true, [&] { return PMPI_Cancel(request); });
}
