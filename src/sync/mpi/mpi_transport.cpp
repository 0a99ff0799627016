#include "sync/mpi/mpi_transport.hpp"

#include <sched.h>

namespace harmonize::sync {
namespace {
// The communicator is private, so one tag suffices; a named one reads better
// in a message trace.
constexpr int kTag = 0x4843;  // "HC"
}  // namespace

MpiTransport::MpiTransport(MPI_Comm owned) : comm_(owned) {
  PMPI_Comm_rank(comm_, &rank_);
  PMPI_Comm_size(comm_, &size_);
}

MpiTransport::~MpiTransport() {
  int finalized = 0;
  PMPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) PMPI_Comm_free(&comm_);
}

MPI_Comm private_copy(MPI_Comm comm) {
  // A split, not a dup: MPI_Comm_dup runs the user's attribute copy callbacks
  // (and later their delete callbacks) on what is ours alone.
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  MPI_Comm copy = MPI_COMM_NULL;
  PMPI_Comm_split(comm, 0, rank, &copy);
  return copy;
}

std::unique_ptr<MpiTransport> MpiTransport::duplicate(MPI_Comm comm) {
  return std::make_unique<MpiTransport>(private_copy(comm));
}

void MpiTransport::send(int peer, std::span<const double> values) {
  PMPI_Send(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, peer, kTag, comm_);
}

void MpiTransport::recv(int peer, std::span<double> values) {
  if (!yield_) {
    PMPI_Recv(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, peer, kTag, comm_,
              MPI_STATUS_IGNORE);
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  PMPI_Irecv(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, peer, kTag, comm_,
             &request);
  for (int done = 0;;) {
    PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) return;
    sched_yield();
  }
}

void MpiTransport::broadcast(std::vector<std::byte>& bytes, int root) {
  int count = static_cast<int>(bytes.size());
  PMPI_Bcast(&count, 1, MPI_INT, root, comm_);
  bytes.resize(static_cast<std::size_t>(count));
  PMPI_Bcast(bytes.data(), count, MPI_BYTE, root, comm_);
}

std::unique_ptr<Transport> MpiTransport::split(int color, int key) {
  MPI_Comm part = MPI_COMM_NULL;
  PMPI_Comm_split(comm_, color < 0 ? MPI_UNDEFINED : color, key, &part);
  if (part == MPI_COMM_NULL) return nullptr;
  auto child = std::make_unique<MpiTransport>(part);
  child->set_yield_while_waiting(yield_);
  return child;
}

}  // namespace harmonize::sync
