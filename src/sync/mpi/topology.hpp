#pragma once
// Where the processes of a communicator sit: (virtual) node and socket.
#include <mpi.h>

#include <functional>
#include <string>

#include "sync/hierarchical_sync.hpp"

namespace harmonize::sync {

struct Topology {
  Placement placement;      // this process
  std::string socket_note;  // why sockets are unknown, when they are
};

// Collective over `comm` (use the private duplicate). The node comes from
// `virtual_node_of_rank(world rank)` when given (test clocks with
// HARMONIZE_TEST_NODE_SIZE), else from MPI_Comm_split_type(SHARED). The socket
// comes from hwloc when this process is bound inside one package; if any
// process is not, every process gets socket -1 (H3HCA falls back).
// hwloc is only asked when `want_sockets` (loading a topology costs milliseconds).
Topology discover_topology(MPI_Comm comm, const std::function<int(int)>& virtual_node_of_rank,
                           bool want_sockets);

// Collective over `comm`: more ranks on some node than the cores they may run
// on, all together (ranks bound to one core each are not oversubscribed; ranks
// sharing a set of cores are). Call it on the world, never from a
// sub-communicator's barrier.
bool node_is_oversubscribed(MPI_Comm comm);

}  // namespace harmonize::sync
