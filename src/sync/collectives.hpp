#pragma once
// The collectives the barrier protocols need from one group of processes:
// implemented on a user's communicator over PMPI (sync/mpi), and by every
// Transport from point-to-point messages (the simulator's and the library's
// private world's). Failures throw (sync::MpiError over MPI).
#include <span>

namespace harmonize::sync {

enum class ReduceOp { max, min };

class Collectives {
 public:
  virtual ~Collectives() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Element-wise `op` of everybody's `in` lands in `root`'s `out` (same
  // length; untouched elsewhere).
  virtual void reduce_to_root(std::span<const double> in, std::span<double> out, ReduceOp op,
                              int root) = 0;
  // `root`'s `values` end up in everybody's `values`.
  virtual void broadcast_from_root(std::span<double> values, int root) = 0;
  // Element-wise `op` of everybody's `in` lands in everybody's `out`: like a
  // reduce and a broadcast, which is what this default does; MPI's does it
  // in log P rounds instead of 2 log P (one exchange for two processes).
  virtual void all_reduce(std::span<const double> in, std::span<double> out, ReduceOp op) {
    reduce_to_root(in, out, op, 0);
    broadcast_from_root(out, 0);
  }
  // Nobody returns before everybody has called it.
  virtual void barrier() = 0;
};

}  // namespace harmonize::sync
