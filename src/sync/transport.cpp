#include "sync/transport.hpp"

#include <algorithm>
#include <vector>

namespace harmonize::sync {

// Binomial trees relative to the root: log2(size) rounds, each process sends
// or receives once per round at most.
void Transport::reduce_to_root(std::span<const double> in, std::span<double> out, ReduceOp op,
                               int root) {
  const int n = size();
  const int relative = (rank() - root + n) % n;
  std::vector<double> partial(in.begin(), in.end());
  std::vector<double> incoming(in.size());
  for (int mask = 1; mask < n; mask <<= 1) {
    if (relative & mask) {
      send((relative - mask + root) % n, partial);
      return;
    }
    if (relative + mask < n) {
      recv((relative + mask + root) % n, incoming);
      for (std::size_t i = 0; i < partial.size(); ++i) {
        partial[i] = op == ReduceOp::max ? std::max(partial[i], incoming[i])
                                         : std::min(partial[i], incoming[i]);
      }
    }
  }
  std::copy(partial.begin(), partial.end(), out.begin());
}

void Transport::broadcast_from_root(std::span<double> values, int root) {
  binomial_broadcast(
      root, [&](int parent) { recv(parent, values); }, [&](int child) { send(child, values); });
}

void Transport::barrier() {
  const double nothing = 0;
  double ignored = 0;
  all_reduce(std::span(&nothing, 1), std::span(&ignored, 1), ReduceOp::max);
}

}  // namespace harmonize::sync
