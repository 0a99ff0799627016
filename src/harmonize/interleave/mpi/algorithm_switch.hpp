#pragma once
// The collective algorithms of interleaved sides (ALLREDUCE=recursive_doubling),
// switched per call through the MPI tool interface: each side's values are
// written before its barrier, so the collectives that follow it run them.
//
// Which MPI reads the variable at each call (docs/interleave.md, "Algorithm
// sides"), measured with tests/mpi/programs/interleaved_signature.c:
//   - MPICH reads MPIR_CVAR_<OP>_INTRA_ALGORITHM at each call: switched;
//   - Open MPI's tuned component copies coll_tuned_<op>_algorithm into a
//     communicator when the communicator is made: a write changes only the
//     communicators made after it, so a side of MPI_COMM_WORLD cannot be
//     switched per call: refused at MPI_Init, naming the side.
// A value is checked against the choices the MPI lists for the variable: an
// algorithm MPICH does not have is an assertion in its next collective.
//
// The variables are the process's, not a communicator's: collectives on a
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

  // Writes `side`'s values where they differ from the last side's; throws
  // sync::MpiError when the MPI refuses a write it accepted at MPI_Init.
  void apply(std::size_t side);

  // How the sides are switched, for the report.
  static constexpr const char* kHow =
      "per call: MPI_T control variable written before each "
      "side's barrier (MPICH reads it at each call)";

 private:
  struct Variable;  // the MPI's handle type: SMPI has none
  AlgorithmSwitch();
  void write(Variable& variable, int value);

  bool tool_open_ = false;
  std::vector<Variable> variables_;
  std::size_t current_ = static_cast<std::size_t>(-1);
  std::mutex lock_;  // barriers of several threads
};

}  // namespace harmonize::interleave
