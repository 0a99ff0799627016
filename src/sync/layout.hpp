#pragma once
// Where every process of the job sits (node, socket), learned once at
// MPI_Init; a group's placement is then looked up, with no communication.
#include <string>
#include <vector>

#include "sync/hierarchical_sync.hpp"
#include "sync/settings.hpp"

namespace harmonize::sync {

struct Layout {
  std::vector<Placement> of_rank;  // by rank in the carrier (the private world)
  std::string socket_note;         // why some process's socket is unknown
};

// This process's placement in the group whose members are `members` (world
// carrier ranks by group rank). Every member computes the same agreement: when any
// member's socket is unknown, the socket is unknown (-1) for all of them.
Placement placement_in_group(const Layout& layout, const std::vector<int>& members, int group_rank);

// `rank`'s node, numbered densely from 0 in the order of the nodes' lowest
// ranks (the layout's node ids are those ranks, or virtual nodes in rank
// order), and how many nodes there are: the nodes of HARMONIZE_ARRIVAL's
// node:N and of the report.
struct NodeNumber {
  int index = 0;
  int count = 1;
};
NodeNumber node_number(const Layout& layout, int rank);

// Whether `scheme` copies models between processes of some node (h2hca and
// h3hca do, hca3 never), which the shared-clock check then verifies. Alike
// on every rank: the layout is the job's.
bool copies_models_within_a_node(const Layout& layout, Scheme scheme);

// Which world ranks Check-Global-Clock measures at MPI_Finalize: node
// leaders first (they carry the node's clock), then other ranks, evenly
// sampled, at most kMaxCheckedRanks (sync/clock_check.hpp). O(P): every rank
// runs it.
std::vector<int> end_check_ranks(const Layout& layout);

}  // namespace harmonize::sync
