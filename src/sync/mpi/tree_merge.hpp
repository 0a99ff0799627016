#pragma once
// Merging every process's contribution to rank 0 up the binomial tree of
// sync/tree_schedule.hpp over the library's private world: rank 0 receives
// ceil(log2 P) messages and no process holds more than its subtree's merge,
// instead of the P messages and P records a gather brings to rank 0.
#include <mpi.h>

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace harmonize::sync {

// A message the tree could not take: the subtree it was to carry.
struct MissingSubtree {
  int first_rank = 0;
  int last_rank = 0;  // inclusive
  int step = 0;       // 1-based: the k-th message of the receiving rank
  std::string what;   // "PMPI_Recv: ..." or "unreadable"
};

struct TreeMerger {
  // Folds a child's subtree, encoded like `encode()`; false if unreadable.
  std::function<bool(std::span<const double>)> absorb;
  // Notes a subtree that did not arrive (carried up with the merge).
  std::function<void(const MissingSubtree&)> missing;
  // What this process sends up once its children are in.
  std::function<std::vector<double>()> encode;
};

// Runs this process's part of the tree on `comm` with `tag`. MPI failures
// and exceptions of `absorb` are reported through `merger.missing`
// (receiving) or ignored (sending: the parent reports it); every process
// sends its parent one message whatever happens, so nobody waits forever;
// nothing is thrown.
void merge_up_tree(MPI_Comm comm, int tag, const TreeMerger& merger);

}  // namespace harmonize::sync
