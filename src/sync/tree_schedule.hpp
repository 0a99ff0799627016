#pragma once
// The binomial tree that merges every process's report records to rank 0
// (pure; sync/mpi/tree_merge runs it). Rank r receives from r+1, r+2, r+4,
// ... while that bit of r is clear, and sends to r minus its lowest set bit:
// rank 0 receives ceil(log2 P) messages, and merging a rank's own record
// then its children's in that order visits the ranks in increasing order.
#include <vector>

namespace harmonize::sync {

// The ranks `rank` receives from, in the order it merges them.
inline std::vector<int> tree_children(int rank, int size) {
  std::vector<int> children;
  for (int mask = 1; mask < size && (rank & mask) == 0; mask <<= 1) {
    if (rank + mask < size) children.push_back(rank + mask);
  }
  return children;
}

// The rank `rank` sends to; -1 for rank 0.
inline int tree_parent(int rank) {
  return rank == 0 ? -1 : rank - (rank & -rank);
}

// The last rank of the subtree whose root is `rank` (inclusive).
inline int tree_subtree_last(int rank, int size) {
  const int span = rank == 0 ? size : (rank & -rank);
  return (rank + span < size ? rank + span : size) - 1;
}

}  // namespace harmonize::sync
