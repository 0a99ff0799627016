#include "sync/mpi/comm_collectives.hpp"

#include "sync/mpi/mpi_error.hpp"
#include "sync/mpi/wait.hpp"

namespace harmonize::sync {
namespace {

MPI_Op mpi_op_of(ReduceOp op) {
  return op == ReduceOp::max ? MPI_MAX : MPI_MIN;
}

// The blocking collective, or (`yield`) its non-blocking twin, started by
// `start` and polled with yields (wait.hpp).
template <typename Blocking, typename Start>
void collective(bool yield, Blocking blocking, const char* blocking_name, Start start,
                const char* start_name) {
  if (!yield) {
    check_mpi(blocking(), blocking_name);
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(wait_for(request, start(request), true), start_name);
}

}  // namespace

void CommCollectives::reduce_to_root(std::span<const double> in, std::span<double> out, ReduceOp op,
                                     int root) {
  const MPI_Op mpi_op = mpi_op_of(op);
  const int count = static_cast<int>(in.size());
  collective(
      yield_,
      [&] { return PMPI_Reduce(in.data(), out.data(), count, MPI_DOUBLE, mpi_op, root, comm_); },
      "PMPI_Reduce",
      [&](MPI_Request& request) {
        return PMPI_Ireduce(in.data(), out.data(), count, MPI_DOUBLE, mpi_op, root, comm_,
                            &request);
      },
      "PMPI_Ireduce");
}

void CommCollectives::broadcast_from_root(std::span<double> values, int root) {
  const int count = static_cast<int>(values.size());
  collective(
      yield_, [&] { return PMPI_Bcast(values.data(), count, MPI_DOUBLE, root, comm_); },
      "PMPI_Bcast",
      [&](MPI_Request& request) {
        return PMPI_Ibcast(values.data(), count, MPI_DOUBLE, root, comm_, &request);
      },
      "PMPI_Ibcast");
}

void CommCollectives::all_reduce(std::span<const double> in, std::span<double> out, ReduceOp op) {
  const MPI_Op mpi_op = mpi_op_of(op);
  const int count = static_cast<int>(in.size());
  collective(
      yield_,
      [&] { return PMPI_Allreduce(in.data(), out.data(), count, MPI_DOUBLE, mpi_op, comm_); },
      "PMPI_Allreduce",
      [&](MPI_Request& request) {
        return PMPI_Iallreduce(in.data(), out.data(), count, MPI_DOUBLE, mpi_op, comm_, &request);
      },
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

int thread_level() {
  int provided = MPI_THREAD_SINGLE;
  check_mpi(PMPI_Query_thread(&provided), "PMPI_Query_thread");
  return provided;
}

}  // namespace harmonize::sync
