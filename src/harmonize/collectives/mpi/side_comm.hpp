#pragma once
// HARMONIZE_INTERLEAVE's algorithm sides on an MPI that fixes a
// communicator's collective algorithm when the communicator is made (Open
// MPI, docs/interleave.md "Algorithm sides"): after a side's barrier on
// `user`, the collectives this thread calls on `user` run on the side's
// duplicate, made under the side's algorithm, until its next barrier on
// `user`. The session sets it; the entry points (shim) read it, one
// comparison per call when no side is set. The call's record still names
// the user's communicator: the swap lasts the call only (SideCall).
#include <mpi.h>

#include "common/per_thread.hpp"

namespace harmonize::collectives {

struct SideComm {
  MPI_Comm user = MPI_COMM_NULL;
  MPI_Comm run_on = MPI_COMM_NULL;
  MPI_Fint user_f = 0;  // the Fortran handles, for the Fortran entry points
  MPI_Fint run_on_f = 0;
};

HARMONIZE_PER_THREAD inline SideComm t_side_comm;

// After a barrier on `user`: its calls run on `run_on` (MPI_COMM_NULL: on
// `user` itself).
inline void run_collectives_of(MPI_Comm user, MPI_Comm run_on) {
  if (run_on == MPI_COMM_NULL) {
    if (t_side_comm.user == user) t_side_comm = {};
    return;
  }
  t_side_comm = {user, run_on, PMPI_Comm_c2f(user), PMPI_Comm_c2f(run_on)};
}

// For one call: `comm` (the entry point's argument) swapped for the side's
// communicator, and back when the call returns.
class SideCall {
 public:
  explicit SideCall(MPI_Comm& comm) : c_(&comm), c_saved_(comm) {
    if (comm == t_side_comm.user && comm != MPI_COMM_NULL) comm = t_side_comm.run_on;
  }
  explicit SideCall(MPI_Fint*& comm) : f_(&comm), f_saved_(comm) {
    if (t_side_comm.user != MPI_COMM_NULL && comm != nullptr && *comm == t_side_comm.user_f)
      comm = &t_side_comm.run_on_f;
  }
  ~SideCall() {
    if (c_ != nullptr) *c_ = c_saved_;
    if (f_ != nullptr) *f_ = f_saved_;
  }
  SideCall(const SideCall&) = delete;
  SideCall& operator=(const SideCall&) = delete;

 private:
  MPI_Comm* c_ = nullptr;
  MPI_Comm c_saved_ = MPI_COMM_NULL;
  MPI_Fint** f_ = nullptr;
  MPI_Fint* f_saved_ = nullptr;
};

}  // namespace harmonize::collectives
