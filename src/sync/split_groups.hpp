#pragma once
// The groups of a split (MPI_Comm_split semantics), computed from the
// processes' (color, key) pairs and handed down a tree (pure;
// sync/mpi/group_transport runs it). Pairs are flattened, two ints a process,
// in rank order; a message of groups is flattened as color, count, members...
#include <map>
#include <span>
#include <vector>

namespace harmonize::sync {

// For each color >= 0 among `pairs` (of ranks first, first + 1, ...), its
// members' ranks ordered by (key, rank).
using SplitGroups = std::map<int, std::vector<int>>;
SplitGroups split_groups(std::span<const int> pairs, int first = 0);

// The groups of `groups` whose color a process of `pairs` has: what the
// subtree holding those processes needs to know.
std::vector<int> encode_groups(const SplitGroups& groups, std::span<const int> pairs);
// Throws std::invalid_argument on a message that does not parse or names a
// rank outside [0, size).
SplitGroups decode_groups(std::span<const int> message, int size);

}  // namespace harmonize::sync
