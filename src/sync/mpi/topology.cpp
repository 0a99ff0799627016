#include "sync/mpi/topology.hpp"

#include <sched.h>

#ifdef HARMONIZE_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace harmonize::sync {
namespace {

// The world rank of the node communicator's rank 0 names the node the same
// way on every member, without any hostname hashing.
int shared_memory_node(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int color = rank;
  PMPI_Bcast(&color, 1, MPI_INT, 0, node);
  PMPI_Comm_free(&node);
  return color;
}

// Package index this process is bound within, or -1 with the reason.
int bound_socket(std::string& why) {
#ifdef HARMONIZE_HAVE_HWLOC
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) {
    why = "hwloc could not be initialised";
    return -1;
  }
  int socket = -1;
  hwloc_cpuset_t binding = hwloc_bitmap_alloc();
  if (hwloc_topology_load(topology) == 0 &&
      hwloc_get_cpubind(topology, binding, HWLOC_CPUBIND_PROCESS) == 0) {
    hwloc_obj_t package =
        hwloc_get_next_obj_covering_cpuset_by_type(topology, binding, HWLOC_OBJ_PACKAGE, nullptr);
    if (package != nullptr &&
        hwloc_get_next_obj_covering_cpuset_by_type(topology, binding, HWLOC_OBJ_PACKAGE, package) ==
            nullptr &&
        hwloc_bitmap_isincluded(binding, package->cpuset)) {
      socket = static_cast<int>(package->logical_index);
    } else {
      why = "a process is not bound within one socket";
    }
  } else {
    why = "hwloc could not read the process binding";
  }
  hwloc_bitmap_free(binding);
  hwloc_topology_destroy(topology);
  return socket;
#else
  why = "built without hwloc";
  return -1;
#endif
}

}  // namespace

Topology discover_topology(MPI_Comm comm, const std::function<int(int)>& virtual_node_of_rank,
                           bool want_sockets) {
  Topology topology;
  if (virtual_node_of_rank) {
    int world_rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    topology.placement.node = virtual_node_of_rank(world_rank);
  } else {
    topology.placement.node = shared_memory_node(comm);
  }
  if (!want_sockets) return topology;
  int socket = bound_socket(topology.socket_note);
  int lowest = socket;
  PMPI_Allreduce(&socket, &lowest, 1, MPI_INT, MPI_MIN, comm);
  if (lowest < 0) {
    socket = -1;
    if (topology.socket_note.empty())
      topology.socket_note = "a process is not bound within one socket";
  }
  topology.placement.socket = socket;
  return topology;
}

bool node_is_oversubscribed(MPI_Comm world) {
  MPI_Comm node = MPI_COMM_NULL;
  PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int ranks_on_node = 1;
  PMPI_Comm_size(node, &ranks_on_node);
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_SET(0, &mine);
  cpu_set_t all;
  CPU_ZERO(&all);
  constexpr int kWords = sizeof(cpu_set_t) / sizeof(unsigned long);
  PMPI_Allreduce(&mine, &all, kWords, MPI_UNSIGNED_LONG, MPI_BOR, node);
  PMPI_Comm_free(&node);
  int oversubscribed = ranks_on_node > CPU_COUNT(&all) ? 1 : 0;
  int anywhere = 0;
  PMPI_Allreduce(&oversubscribed, &anywhere, 1, MPI_INT, MPI_MAX, world);
  return anywhere != 0;
}

}  // namespace harmonize::sync
