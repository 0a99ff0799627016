#pragma once
// The little the sync algorithms need from a network. Implemented over PMPI
// on the library's private world (sync/mpi/group_transport) and in-process
// for tests (sync/sim_world). The collectives come for free from the
// point-to-point messages (binomial trees), so the barrier protocols run on
// any transport too.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "sync/collectives.hpp"

namespace harmonize::sync {

class Transport : public Collectives {
 public:
  // Point-to-point within this group; a few doubles, blocking, in order.
  virtual void send(int peer, std::span<const double> values) = 0;
  virtual void recv(int peer, std::span<double> values) = 0;
  // Collective: `bytes` of `root` end up in everybody's `bytes`.
  virtual void broadcast(std::vector<std::byte>& bytes, int root) = 0;
  // Collective: like MPI_Comm_split; color < 0 means "not in any group" and
  // returns nullptr for that caller.
  virtual std::unique_ptr<Transport> split(int color, int key) = 0;

  void reduce_to_root(std::span<const double> in, std::span<double> out, ReduceOp op,
                      int root) override;
  void broadcast_from_root(std::span<double> values, int root) override;
  void barrier() override;

 protected:
  // A broadcast down the binomial tree rooted at `root` (log2(size) rounds):
  // `receive(parent)` once, except at the root, then `send(child)` for each
  // child, the farthest first.
  template <typename Receive, typename Send>
  void binomial_broadcast(int root, Receive receive, Send send) {
    const int n = size();
    const int relative = (rank() - root + n) % n;
    int mask = 1;
    for (; mask < n; mask <<= 1) {
      if (relative & mask) {
        receive((relative - mask + root) % n);
        break;
      }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
      if (relative + mask < n) send((relative + mask + root) % n);
    }
  }
};

}  // namespace harmonize::sync
