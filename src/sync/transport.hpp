#pragma once
// The little the sync algorithms need from a network. Implemented over PMPI
// (sync/mpi) and in-process for tests (sync/simulator).
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace harmonize::sync {

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Point-to-point within this group; a few doubles, blocking, in order.
  virtual void send(int peer, std::span<const double> values) = 0;
  virtual void recv(int peer, std::span<double> values) = 0;
  // Collective: `bytes` of `root` end up in everybody's `bytes`.
  virtual void broadcast(std::vector<std::byte>& bytes, int root) = 0;
  // Collective: like MPI_Comm_split; color < 0 means "not in any group" and
  // returns nullptr for that caller.
  virtual std::unique_ptr<Transport> split(int color, int key) = 0;
};

}  // namespace harmonize::sync
