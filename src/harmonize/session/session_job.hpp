#pragma once
// The job as the session found it at MPI_Init: the library's world, this
// process's place in it, and the nodes.
#include <mpi.h>

#include <string>

#include "sync/layout.hpp"
#include "sync/mpi/topology.hpp"

namespace harmonize {

struct SessionJob {
  MPI_Comm world = MPI_COMM_NULL;  // owned by the lifecycle; MPI_COMM_NULL in mode off
  int rank = 0;
  int size = 1;
  std::string started;          // ISO-8601 UTC
  sync::NodeCrowding crowding;  // yield while waiting; the warning's cause
  sync::Layout layout;          // node and socket of every world rank
  sync::NodeNumber node;        // this process's node and how many
};

}  // namespace harmonize
