#include "sync/mpi/comm_collectives.hpp"

#include "sync/mpi/mpi_error.hpp"
#include "sync/mpi/wait.hpp"

namespace harmonize::sync {

void CommCollectives::reduce_to_root(std::span<const double> in, std::span<double> out, ReduceOp op,
                                     int root) {
  const MPI_Op mpi_op = op == ReduceOp::max ? MPI_MAX : MPI_MIN;
  const int count = static_cast<int>(in.size());
  if (!yield_) {
    check_mpi(PMPI_Reduce(in.data(), out.data(), count, MPI_DOUBLE, mpi_op, root, comm_),
              "PMPI_Reduce");
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(wait_for(request,
                     PMPI_Ireduce(in.data(), out.data(), count, MPI_DOUBLE, mpi_op, root, comm_,
                                  &request),
                     true),
            "PMPI_Ireduce");
}

void CommCollectives::broadcast_from_root(std::span<double> values, int root) {
  const int count = static_cast<int>(values.size());
  if (!yield_) {
    check_mpi(PMPI_Bcast(values.data(), count, MPI_DOUBLE, root, comm_), "PMPI_Bcast");
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(
      wait_for(request, PMPI_Ibcast(values.data(), count, MPI_DOUBLE, root, comm_, &request), true),
      "PMPI_Ibcast");
}

void CommCollectives::all_reduce(std::span<const double> in, std::span<double> out, ReduceOp op) {
  const MPI_Op mpi_op = op == ReduceOp::max ? MPI_MAX : MPI_MIN;
  const int count = static_cast<int>(in.size());
  if (!yield_) {
    check_mpi(PMPI_Allreduce(in.data(), out.data(), count, MPI_DOUBLE, mpi_op, comm_),
              "PMPI_Allreduce");
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(
      wait_for(request,
               PMPI_Iallreduce(in.data(), out.data(), count, MPI_DOUBLE, mpi_op, comm_, &request),
               true),
      "PMPI_Iallreduce");
}

void CommCollectives::barrier() {
  check_mpi(PMPI_Barrier(comm_), "PMPI_Barrier");
}

int native_barrier(MPI_Comm comm) {
  return PMPI_Barrier(comm);
}

CommFacts describe_communicator(MPI_Comm comm) {
  CommFacts facts;
  int inter = 0;
  check_mpi(PMPI_Comm_test_inter(comm, &inter), "PMPI_Comm_test_inter");
  facts.inter = inter != 0;
  check_mpi(PMPI_Comm_size(comm, &facts.size), "PMPI_Comm_size");
  check_mpi(PMPI_Comm_rank(comm, &facts.rank), "PMPI_Comm_rank");
  char name[MPI_MAX_OBJECT_NAME] = {0};
  int length = 0;
  if (PMPI_Comm_get_name(comm, name, &length) == MPI_SUCCESS && length > 0)
    facts.name.assign(name, static_cast<std::size_t>(length));
  return facts;
}

}  // namespace harmonize::sync
