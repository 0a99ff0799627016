#pragma once
// Where every process of the job sits (node, socket), learned once at
// MPI_Init; a group's placement is then looked up, with no communication.
#include <string>
#include <vector>

#include "sync/hierarchical_sync.hpp"

namespace harmonize::sync {

struct Layout {
  std::vector<Placement> of_rank;  // by rank in the carrier (the private world)
  std::string socket_note;         // why some process's socket is unknown
};

// This process's placement in the group whose members are `members` (world
// carrier ranks by group rank). Every member computes the same agreement: when any
// member's socket is unknown, the socket is unknown (-1) for all of them.
Placement placement_in_group(const Layout& layout, const std::vector<int>& members, int group_rank);

}  // namespace harmonize::sync
