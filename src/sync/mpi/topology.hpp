#pragma once
// Where the processes of the job sit: (virtual) node and socket.
#include <mpi.h>

#include <functional>
#include <vector>

#include "sync/layout.hpp"

namespace harmonize::sync {

// Collective over `comm` (the library's private world). The node comes from
// `virtual_node_of_rank(world rank)` when given (test clocks with
// HARMONIZE_TEST_NODE_SIZE), else from MPI_Comm_split_type(SHARED). The socket
// comes from hwloc when this process is bound inside one package (-1 if not).
// hwloc is only asked when `want_sockets` (loading a topology costs
// milliseconds). With virtual nodes, no sockets and a copy of the world,
// nothing is exchanged: every rank knows every rank's virtual node. Throws
// MpiError.
Layout gather_layout(MPI_Comm comm, const std::function<int(int)>& virtual_node_of_rank,
                     bool want_sockets);

// Collective over `comm`: the shared-memory node of every rank of `comm`,
// numbered 0, 1, ... in the order of each node's lowest rank (rank 0 is on
// node 0). Throws MpiError.
std::vector<int> gather_shared_memory_nodes(MPI_Comm comm);

struct NodeCrowding {
  bool oversubscribed = false;  // some node has more ranks than cores
  int ranks = 0;                // on the most crowded node (ranks - cores largest)
  int cores = 0;                // the cores those ranks may run on, all together
  int ranks_here = 0;           // on this process's node
};

// Collective over `comm`: more ranks on some node than the cores they may run
// on, all together (ranks bound to one core each are not oversubscribed; ranks
// sharing a set of cores are). Throws MpiError.
NodeCrowding node_crowding(MPI_Comm comm);

}  // namespace harmonize::sync
