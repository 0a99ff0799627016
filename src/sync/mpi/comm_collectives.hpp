#pragma once
// The barrier protocols' collectives on a user's communicator itself: every
// member calls them in the same order inside MPI_Barrier, which MPI's
// ordering rule for collectives makes safe, and they cost the program no
// communicator (docs/barrier.md, "Communicator footprint"). Point-to-point
// traffic never runs here: a wildcard receive of the program could take it.
#include <mpi.h>

#include <string>

#include "sync/collectives.hpp"

namespace harmonize::sync {

class CommCollectives final : public Collectives {
 public:
  // `comm` is the user's; `yield`: poll and yield while waiting (see wait.hpp).
  CommCollectives(MPI_Comm comm, int rank, int size, bool yield)
      : comm_(comm), rank_(rank), size_(size), yield_(yield) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // Throw MpiError with MPI's status (the user's error handler has run).
  void reduce_to_root(std::span<const double> in, std::span<double> out, ReduceOp op,
                      int root) override;
  void broadcast_from_root(std::span<double> values, int root) override;
  void all_reduce(std::span<const double> in, std::span<double> out, ReduceOp op) override;
  void barrier() override;  // the native barrier, PMPI_Barrier

 private:
  MPI_Comm comm_;
  int rank_;
  int size_;
  bool yield_;
};

// PMPI_Barrier on `comm`, its status returned as it is.
int native_barrier(MPI_Comm comm);

// What the library needs to know of a user's communicator (local calls).
struct CommFacts {
  bool inter = false;
  int size = 1;
  int rank = 0;
  std::string name;  // set with MPI_Comm_set_name, or empty
};
// Throws MpiError.
CommFacts describe_communicator(MPI_Comm comm);

// The thread support MPI provides (PMPI_Query_thread). Throws MpiError.
int thread_level();

}  // namespace harmonize::sync
