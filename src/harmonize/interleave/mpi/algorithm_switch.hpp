#pragma once
// The collective algorithms of interleaved sides (ALLREDUCE=recursive_doubling),
// set through the MPI tool interface, as each MPI reads them (docs/interleave.md
// "Algorithm sides", proven with tests/mpi/programs/interleaved_signature.c):
//   - MPICH reads MPIR_CVAR_<OP>_INTRA_ALGORITHM at each call: each side's
//     values are written before its barrier (apply);
//   - Open MPI's tuned component copies coll_tuned_<op>_algorithm into a
//     communicator when the communicator is made: each side that sets an
//     algorithm gets a communicator of its own made under its values
//     (side_communicator), on which the program's collectives after the
//     side's barrier run (collectives/mpi/side_comm.hpp).
// A value is checked against the choices the MPI lists for the variable: an
// algorithm MPICH does not have is an assertion in its next collective.
//
// MPICH's variables are the process's, not a communicator's: collectives on a
// second communicator between two barriers of the first run the first's
// side (their calls are not tagged, so no comparison counts them).
#include <mpi.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config/interleave.hpp"

namespace harmonize::interleave {

class AlgorithmSwitch {
 public:
  // Null when no side sets an algorithm, or with `error` (one line naming
  // the side) when this MPI cannot switch one per call.
  static std::unique_ptr<AlgorithmSwitch> make(const config::InterleaveSides& sides,
                                               std::string& error);
  ~AlgorithmSwitch();  // the values as they were at MPI_Init again
  AlgorithmSwitch(const AlgorithmSwitch&) = delete;
  AlgorithmSwitch& operator=(const AlgorithmSwitch&) = delete;

  // Whether the MPI fixes the algorithm per communicator (Open MPI).
  bool per_communicator() const { return per_communicator_; }
  // Whether `side` runs an algorithm other than the job's own.
  bool sets_algorithm(std::size_t side) const;

  // MPICH: writes `side`'s values where they differ from the last side's.
  // Throws sync::MpiError when the MPI refuses a write it accepted at MPI_Init.
  void apply(std::size_t side);
  // Open MPI: a communicator of `user`'s members made under `side`'s values
  // (collective over `user`), the job's own values written back after.
  MPI_Comm side_communicator(MPI_Comm user, std::size_t side);

  // How the sides are switched, for the report.
  const char* how() const {
    return per_communicator_ ? "per communicator: each side's calls run on a communicator of "
                               "the same members made under its MPI_T values (Open MPI fixes "
                               "the algorithm when a communicator is made)"
                             : "per call: MPI_T control variable written before each side's "
                               "barrier (MPICH reads it at each call)";
  }

 private:
  struct Variable;  // the MPI's handle type: SMPI has none
  AlgorithmSwitch();
  void write(Variable& variable, int value);

  bool tool_open_ = false;
  bool per_communicator_ = false;
  std::vector<Variable> variables_;
  std::size_t current_ = static_cast<std::size_t>(-1);
  std::mutex lock_;  // barriers of several threads
};

}  // namespace harmonize::interleave
