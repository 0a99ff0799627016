// The Fortran calls that complete, free or cancel requests (MPI_WAIT,
// MPI_TEST and their ANY, SOME and ALL forms, MPI_REQUEST_FREE, MPI_CANCEL),
// every spelling (fortran_collective_signatures.hpp): the bindings call
// MPI's C profiling functions (Open MPI) or its C functions (MPICH, whose
// calls then pass through the C entry points as nested calls), so a Fortran
// program's non-blocking collectives end here (request_tracking.hpp). Each
// is handed on to the MPI library's own definition of its name. The
// statuses are passed through untouched: their layout is the binding's.
#include <mpi.h>

#include "shim/fortran_collective_signatures.hpp"
#include "shim/request_tracking.hpp"

#define HARMONIZE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

// MPI_REQUEST_NULL as Fortran sees it.
MPI_Fint null_request() {
  static const MPI_Fint null = PMPI_Request_c2f(MPI_REQUEST_NULL);
  return null;
}

// `next` may complete any of the `count` Fortran requests.
template <typename Next>
void completing_f(const MPI_Fint* count, MPI_Fint* requests, Next next) {
  if (count == nullptr || requests == nullptr) return next();
  harmonize::shim::completing(
      static_cast<int>(*count),
      [requests](int i) {
        return requests[i] == null_request() ? MPI_REQUEST_NULL : PMPI_Request_f2c(requests[i]);
      },
      [requests](int i) { return requests[i] == null_request(); },
      [&] {
        next();
        return MPI_SUCCESS;
      });
}

template <typename Next>
void ending_f(const MPI_Fint* request, bool cancel, MPI_Fint* ierror, Next next) {
  const MPI_Request c = request == nullptr || *request == null_request()
                            ? MPI_REQUEST_NULL
                            : PMPI_Request_f2c(*request);
  harmonize::shim::ending(c, cancel, [&] {
    next();
    return ierror != nullptr ? static_cast<int>(*ierror) : MPI_SUCCESS;
  });
}

const MPI_Fint kOne = 1;

}  // namespace

using namespace harmonize::shim;

// clang-format off
// One macro per call: ENTRY(exported, _, _) for HARMONIZE_FORTRAN_SPELLINGS.
#define HARMONIZE_FORTRAN_WAIT(exported, lower, upper)                                 \
  HARMONIZE_EXPORT void exported(MPI_Fint* request, void* status, MPI_Fint* ierror) {  \
    using Function = void(MPI_Fint* request, void* status, MPI_Fint*);                 \
    static Function* const next = next_definition<Function>(#exported);                \
    if (next == nullptr) return no_definition(ierror);                                 \
    completing_f(&kOne, request, [&] { next(request, status, ierror); });              \
  }
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_WAIT, wait, WAIT, , )

#define HARMONIZE_FORTRAN_TEST(exported, lower, upper)                                                 \
  HARMONIZE_EXPORT void exported(MPI_Fint* request, MPI_Fint* flag, void* status, MPI_Fint* ierror) {  \
    using Function = void(MPI_Fint* request, MPI_Fint* flag, void* status, MPI_Fint*);                 \
    static Function* const next = next_definition<Function>(#exported);                                \
    if (next == nullptr) return no_definition(ierror);                                                 \
    completing_f(&kOne, request, [&] { next(request, flag, status, ierror); });                        \
  }
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_TEST, test, TEST, , )

#define HARMONIZE_FORTRAN_WAITALL(exported, lower, upper)                                                  \
  HARMONIZE_EXPORT void exported(MPI_Fint* count, MPI_Fint* requests, void* statuses, MPI_Fint* ierror) {  \
    using Function = void(MPI_Fint* count, MPI_Fint* requests, void* statuses, MPI_Fint*);                 \
    static Function* const next = next_definition<Function>(#exported);                                    \
    if (next == nullptr) return no_definition(ierror);                                                     \
    completing_f(count, requests, [&] { next(count, requests, statuses, ierror); });                       \
  }
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_WAITALL, waitall, WAITALL, , )

#define HARMONIZE_FORTRAN_TESTALL(exported, lower, upper)                                                                  \
  HARMONIZE_EXPORT void exported(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* flag, void* statuses, MPI_Fint* ierror) {  \
    using Function = void(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* flag, void* statuses, MPI_Fint*);                 \
    static Function* const next = next_definition<Function>(#exported);                                                    \
    if (next == nullptr) return no_definition(ierror);                                                                     \
    completing_f(count, requests, [&] { next(count, requests, flag, statuses, ierror); });                                 \
  }
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_TESTALL, testall, TESTALL, , )

#define HARMONIZE_FORTRAN_WAITANY(exported, lower, upper)                                                                 \
  HARMONIZE_EXPORT void exported(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, void* status, MPI_Fint* ierror) {  \
    using Function = void(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, void* status, MPI_Fint*);                 \
    static Function* const next = next_definition<Function>(#exported);                                                   \
    if (next == nullptr) return no_definition(ierror);                                                                    \
    completing_f(count, requests, [&] { next(count, requests, index, status, ierror); });                                 \
  }
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_WAITANY, waitany, WAITANY, , )

#define HARMONIZE_FORTRAN_TESTANY(exported, lower, upper)                                                                                 \
  HARMONIZE_EXPORT void exported(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* flag, void* status, MPI_Fint* ierror) {  \
    using Function = void(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* flag, void* status, MPI_Fint*);                 \
    static Function* const next = next_definition<Function>(#exported);                                                                   \
    if (next == nullptr) return no_definition(ierror);                                                                                    \
    completing_f(count, requests, [&] { next(count, requests, index, flag, status, ierror); });                                           \
  }
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_TESTANY, testany, TESTANY, , )

#define HARMONIZE_FORTRAN_WAITSOME(exported, lower, upper)                                                                                          \
  HARMONIZE_EXPORT void exported(MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices, void* statuses, MPI_Fint* ierror) {  \
    using Function = void(MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices, void* statuses, MPI_Fint*);                 \
    static Function* const next = next_definition<Function>(#exported);                                                                             \
    if (next == nullptr) return no_definition(ierror);                                                                                              \
    completing_f(incount, requests, [&] { next(incount, requests, outcount, indices, statuses, ierror); });                                         \
  }
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_WAITSOME, waitsome, WAITSOME, , )

#define HARMONIZE_FORTRAN_TESTSOME(exported, lower, upper)                                                                                          \
  HARMONIZE_EXPORT void exported(MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices, void* statuses, MPI_Fint* ierror) {  \
    using Function = void(MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices, void* statuses, MPI_Fint*);                 \
    static Function* const next = next_definition<Function>(#exported);                                                                             \
    if (next == nullptr) return no_definition(ierror);                                                                                              \
    completing_f(incount, requests, [&] { next(incount, requests, outcount, indices, statuses, ierror); });                                         \
  }
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_TESTSOME, testsome, TESTSOME, , )

#define HARMONIZE_FORTRAN_REQUEST_FREE(exported, lower, upper)           \
  HARMONIZE_EXPORT void exported(MPI_Fint* request, MPI_Fint* ierror) {  \
    using Function = void(MPI_Fint* request, MPI_Fint*);                 \
    static Function* const next = next_definition<Function>(#exported);  \
    if (next == nullptr) return no_definition(ierror);                   \
    ending_f(request, false, ierror, [&] { next(request, ierror); });    \
  }
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST_FREE, request_free, REQUEST_FREE, , )

#define HARMONIZE_FORTRAN_CANCEL(exported, lower, upper)                 \
  HARMONIZE_EXPORT void exported(MPI_Fint* request, MPI_Fint* ierror) {  \
    using Function = void(MPI_Fint* request, MPI_Fint*);                 \
    static Function* const next = next_definition<Function>(#exported);  \
    if (next == nullptr) return no_definition(ierror);                   \
    ending_f(request, true, ierror, [&] { next(request, ierror); });     \
  }
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_CANCEL, cancel, CANCEL, , )
// clang-format on
