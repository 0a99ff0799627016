#pragma once
// Transport over PMPI on a communicator this object owns (a private
// duplicate or a split of one), so internal traffic never mixes with the
// user's and never re-enters our own MPI wrappers.
#include <mpi.h>

#include "sync/transport.hpp"

namespace harmonize::sync {

// Same group and order as `comm`, none of its attributes (collective).
MPI_Comm private_copy(MPI_Comm comm);

class MpiTransport final : public Transport {
 public:
  // Takes ownership of `comm` and frees it in the destructor.
  explicit MpiTransport(MPI_Comm owned);
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  // A private copy of `comm` (collective; see private_copy).
  static std::unique_ptr<MpiTransport> duplicate(MPI_Comm comm);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void send(int peer, std::span<const double> values) override;
  void recv(int peer, std::span<double> values) override;
  void broadcast(std::vector<std::byte>& bytes, int root) override;
  std::unique_ptr<Transport> split(int color, int key) override;
  MPI_Comm comm() const { return comm_; }

  // On an oversubscribed node a blocking receive that spins inside MPI keeps
  // the peer it waits for off the core (MPICH never yields): then receives
  // poll and yield instead. Inherited by split() transports.
  void set_yield_while_waiting(bool yield) { yield_ = yield; }

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  bool yield_ = false;
};

}  // namespace harmonize::sync
