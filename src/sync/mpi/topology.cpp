#include "sync/mpi/topology.hpp"

#include <sched.h>

#include <vector>

#include "sync/mpi/mpi_error.hpp"

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
  check_mpi(PMPI_Comm_rank(comm, &rank), "PMPI_Comm_rank");
  check_mpi(PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
            "PMPI_Comm_split_type");
  int color = rank;
  const int status = PMPI_Bcast(&color, 1, MPI_INT, 0, node);
  (void)PMPI_Comm_free(&node);
  check_mpi(status, "PMPI_Bcast");
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

Layout gather_layout(MPI_Comm comm, const std::function<int(int)>& virtual_node_of_rank,
                     bool want_sockets) {
  int world_rank = 0;
  int size = 1;
  check_mpi(PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank), "PMPI_Comm_rank");
  check_mpi(PMPI_Comm_size(comm, &size), "PMPI_Comm_size");
  Layout layout;
  // Virtual nodes are a function of the world rank that every rank holds:
  // on a copy of the world there is nothing to gather (with the split that
  // found the nodes, 9 s of a 4 096-rank simulation's start). Every rank
  // decides alike.
  int relation = MPI_UNEQUAL;
  if (virtual_node_of_rank && !want_sockets)
    check_mpi(PMPI_Comm_compare(comm, MPI_COMM_WORLD, &relation), "PMPI_Comm_compare");
  if (relation == MPI_IDENT || relation == MPI_CONGRUENT) {
    layout.of_rank.reserve(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) layout.of_rank.push_back({virtual_node_of_rank(r), -1});
    return layout;
  }
  int mine[2] = {virtual_node_of_rank ? virtual_node_of_rank(world_rank) : shared_memory_node(comm),
                 want_sockets ? bound_socket(layout.socket_note) : -1};
  std::vector<int> all(2 * static_cast<std::size_t>(size));
  check_mpi(PMPI_Allgather(mine, 2, MPI_INT, all.data(), 2, MPI_INT, comm), "PMPI_Allgather");
  layout.of_rank.reserve(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) layout.of_rank.push_back({all[2 * r], all[2 * r + 1]});
  if (want_sockets && layout.socket_note.empty()) {
    for (const Placement& placement : layout.of_rank) {
      if (placement.socket < 0) layout.socket_note = "a process is not bound within one socket";
    }
  }
  return layout;
}

std::vector<int> gather_shared_memory_nodes(MPI_Comm comm) {
  int size = 1;
  check_mpi(PMPI_Comm_size(comm, &size), "PMPI_Comm_size");
  int mine = shared_memory_node(comm);
  std::vector<int> leaders(static_cast<std::size_t>(size));
  check_mpi(PMPI_Allgather(&mine, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm), "PMPI_Allgather");
  // A node's leader is its lowest rank, so leaders first appear in rank order.
  std::vector<int> index_of_leader(static_cast<std::size_t>(size), -1);
  // In place: every process holds this table, so at 16 384 simulated ranks
  // each byte per rank is 256 MB.
  int count = 0;
  for (int& leader : leaders) {
    int& index = index_of_leader.at(static_cast<std::size_t>(leader));
    if (index < 0) index = count++;
    leader = index;
  }
  return leaders;
}

NodeCrowding node_crowding(MPI_Comm world) {
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
            "PMPI_Comm_split_type");
  int ranks_on_node = 1;
  (void)PMPI_Comm_size(node, &ranks_on_node);
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_SET(0, &mine);
  cpu_set_t all;
  CPU_ZERO(&all);
  constexpr int kWords = sizeof(cpu_set_t) / sizeof(unsigned long);
  const int status = PMPI_Allreduce(&mine, &all, kWords, MPI_UNSIGNED_LONG, MPI_BOR, node);
  (void)PMPI_Comm_free(&node);
  check_mpi(status, "PMPI_Allreduce");
  // The most crowded node, and who can tell about it.
  int rank = 0;
  check_mpi(PMPI_Comm_rank(world, &rank), "PMPI_Comm_rank");
  struct {
    int excess;
    int rank;
  } local{ranks_on_node - CPU_COUNT(&all), rank}, worst{};
#ifdef HARMONIZE_SMPI
  // A simulated rank owns a simulated core; the affinity is the simulator's.
  local.excess = 0;
#endif
  check_mpi(PMPI_Allreduce(&local, &worst, 1, MPI_2INT, MPI_MAXLOC, world), "PMPI_Allreduce");
#ifdef HARMONIZE_SMPI
  int counts[2] = {ranks_on_node, ranks_on_node};
#else
  int counts[2] = {ranks_on_node, CPU_COUNT(&all)};
#endif
  check_mpi(PMPI_Bcast(counts, 2, MPI_INT, worst.rank, world), "PMPI_Bcast");
  return NodeCrowding{worst.excess > 0, counts[0], counts[1], ranks_on_node};
}

}  // namespace harmonize::sync
