#include "sync/mpi/host_of_rank.hpp"

#include "sync/mpi/mpi_error.hpp"

namespace harmonize::sync {

std::string processor_name() {
  char name[MPI_MAX_PROCESSOR_NAME + 1] = {0};
  int length = 0;
  if (PMPI_Get_processor_name(name, &length) != MPI_SUCCESS) return "";
  return name;
}

std::vector<std::string> gather_host_of_rank(MPI_Comm comm) {
  int rank = 0;
  int size = 1;
  check_mpi(PMPI_Comm_rank(comm, &rank), "PMPI_Comm_rank");
  check_mpi(PMPI_Comm_size(comm, &size), "PMPI_Comm_size");
  char mine[MPI_MAX_PROCESSOR_NAME] = {0};
  processor_name().copy(mine, MPI_MAX_PROCESSOR_NAME - 1);
  std::vector<char> all(rank == 0 ? static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME : 0);
  check_mpi(PMPI_Gather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                        MPI_CHAR, 0, comm),
            "PMPI_Gather");
  std::vector<std::string> hosts;
  for (int i = 0; rank == 0 && i < size; ++i)
    hosts.emplace_back(&all[static_cast<std::size_t>(i) * MPI_MAX_PROCESSOR_NAME]);
  return hosts;
}

}  // namespace harmonize::sync
