// The Fortran calls that complete, free or cancel requests (MPI_WAIT,
// MPI_TEST and their ANY, SOME and ALL forms, MPI_REQUEST_FREE, MPI_CANCEL),
// every spelling (fortran_binding.hpp): the bindings call
// MPI's C profiling functions (Open MPI) or its C functions (MPICH, whose
// calls then pass through the C entry points as nested calls), so a Fortran
// program's non-blocking collectives end here (request_tracking.hpp). Each
// is handed on to the MPI library's own definition of its name. The
// statuses are passed through untouched: their layout is the binding's.
#include <mpi.h>

#include "shim/export.hpp"
#include "shim/fortran_binding.hpp"
#include "shim/request_tracking.hpp"

namespace {

using namespace harmonize::shim;

// MPI_REQUEST_NULL as Fortran sees it.
MPI_Fint null_request() {
  static const MPI_Fint null = PMPI_Request_c2f(MPI_REQUEST_NULL);
  return null;
}

// `next` may complete any of the `count` Fortran requests.
template <typename Next>
void completing_f(const MPI_Fint* count, MPI_Fint* requests, Next next) {
  if (count == nullptr || requests == nullptr) return next();
  completing(
      static_cast<int>(*count), [requests](int i) { return c_request(&requests[i]); },
      [requests](int i) { return requests[i] == null_request(); },
      [&] {
        next();
        return MPI_SUCCESS;
      });
}

// `next` frees (`cancel`: cancels) the Fortran `request`.
template <typename Next>
void ending_f(const MPI_Fint* request, bool cancel, MPI_Fint* ierror, Next next) {
  ending(c_request(request), cancel, [&] {
    next();
    return ierror != nullptr ? static_cast<int>(*ierror) : MPI_SUCCESS;
  });
}

const MPI_Fint kOne = 1;

}  // namespace

// Each call's signature, as the bindings declare it (ierror apart):
// HARMONIZE_REQUEST_PARAMS_<NAME>, HARMONIZE_REQUEST_ARGS_<NAME>, and
// HARMONIZE_REQUEST_ENDS_<NAME>(next): what the call does to the requests
// it is given while `next` hands it on.
// clang-format off
#define HARMONIZE_REQUEST_PARAMS_WAIT MPI_Fint *request, void *status
#define HARMONIZE_REQUEST_ARGS_WAIT request, status
#define HARMONIZE_REQUEST_ENDS_WAIT(next) completing_f(&kOne, request, next)

#define HARMONIZE_REQUEST_PARAMS_TEST MPI_Fint *request, MPI_Fint *flag, void *status
#define HARMONIZE_REQUEST_ARGS_TEST request, flag, status
#define HARMONIZE_REQUEST_ENDS_TEST(next) completing_f(&kOne, request, next)

#define HARMONIZE_REQUEST_PARAMS_WAITALL MPI_Fint *count, MPI_Fint *requests, void *statuses
#define HARMONIZE_REQUEST_ARGS_WAITALL count, requests, statuses
#define HARMONIZE_REQUEST_ENDS_WAITALL(next) completing_f(count, requests, next)

#define HARMONIZE_REQUEST_PARAMS_TESTALL \
  MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, void *statuses
#define HARMONIZE_REQUEST_ARGS_TESTALL count, requests, flag, statuses
#define HARMONIZE_REQUEST_ENDS_TESTALL(next) completing_f(count, requests, next)

#define HARMONIZE_REQUEST_PARAMS_WAITANY \
  MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, void *status
#define HARMONIZE_REQUEST_ARGS_WAITANY count, requests, index, status
#define HARMONIZE_REQUEST_ENDS_WAITANY(next) completing_f(count, requests, next)

#define HARMONIZE_REQUEST_PARAMS_TESTANY \
  MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag, void *status
#define HARMONIZE_REQUEST_ARGS_TESTANY count, requests, index, flag, status
#define HARMONIZE_REQUEST_ENDS_TESTANY(next) completing_f(count, requests, next)

#define HARMONIZE_REQUEST_PARAMS_WAITSOME \
  MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount, MPI_Fint *indices, void *statuses
#define HARMONIZE_REQUEST_ARGS_WAITSOME incount, requests, outcount, indices, statuses
#define HARMONIZE_REQUEST_ENDS_WAITSOME(next) completing_f(incount, requests, next)

// The same signature as waitsome.
#define HARMONIZE_REQUEST_PARAMS_TESTSOME HARMONIZE_REQUEST_PARAMS_WAITSOME
#define HARMONIZE_REQUEST_ARGS_TESTSOME HARMONIZE_REQUEST_ARGS_WAITSOME
#define HARMONIZE_REQUEST_ENDS_TESTSOME HARMONIZE_REQUEST_ENDS_WAITSOME

#define HARMONIZE_REQUEST_PARAMS_REQUEST_FREE MPI_Fint *request
#define HARMONIZE_REQUEST_ARGS_REQUEST_FREE request
#define HARMONIZE_REQUEST_ENDS_REQUEST_FREE(next) ending_f(request, false, ierror, next)

#define HARMONIZE_REQUEST_PARAMS_CANCEL HARMONIZE_REQUEST_PARAMS_REQUEST_FREE
#define HARMONIZE_REQUEST_ARGS_CANCEL HARMONIZE_REQUEST_ARGS_REQUEST_FREE
#define HARMONIZE_REQUEST_ENDS_CANCEL(next) ending_f(request, true, ierror, next)

// One exported entry of the call NAME (HARMONIZE_FORTRAN_SPELLINGS' `upper`),
// handed on to the MPI library's definition of `exported`.
#define HARMONIZE_FORTRAN_REQUEST(exported, lower, NAME)                                  \
  HARMONIZE_EXPORT void exported(HARMONIZE_REQUEST_PARAMS_##NAME, MPI_Fint* ierror) {     \
    using Function = void(HARMONIZE_REQUEST_PARAMS_##NAME, MPI_Fint*);                    \
    static Function* const next = next_definition<Function>(#exported);                   \
    if (next == nullptr) return no_definition(ierror);                                    \
    HARMONIZE_REQUEST_ENDS_##NAME([&] { next(HARMONIZE_REQUEST_ARGS_##NAME, ierror); });  \
  }
// clang-format on

HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST, wait, WAIT, wait, WAIT)
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST, test, TEST, test, TEST)
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST, waitall, WAITALL, waitall, WAITALL)
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST, testall, TESTALL, testall, TESTALL)
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST, waitany, WAITANY, waitany, WAITANY)
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST, testany, TESTANY, testany, TESTANY)
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST, waitsome, WAITSOME, waitsome, WAITSOME)
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST, testsome, TESTSOME, testsome, TESTSOME)
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST, request_free, REQUEST_FREE, request_free,
                            REQUEST_FREE)
HARMONIZE_FORTRAN_SPELLINGS(HARMONIZE_FORTRAN_REQUEST, cancel, CANCEL, cancel, CANCEL)
