#include "sync/mpi/gather.hpp"

#include <set>

#include "sync/mpi/host_of_rank.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize::sync {

std::vector<std::vector<double>> gather_to_root(MPI_Comm world, const std::vector<double>& mine) {
  int rank = 0;
  int size = 1;
  check_mpi(PMPI_Comm_rank(world, &rank), "PMPI_Comm_rank");
  check_mpi(PMPI_Comm_size(world, &size), "PMPI_Comm_size");
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(size) : 0);
  check_mpi(PMPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, world), "PMPI_Gather");
  std::vector<int> offsets(lengths.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = static_cast<int>(total);
    total += static_cast<std::size_t>(lengths[i]);
  }
  std::vector<double> all(total);
  check_mpi(PMPI_Gatherv(mine.data(), length, MPI_DOUBLE, all.data(), lengths.data(),
                         offsets.data(), MPI_DOUBLE, 0, world),
            "PMPI_Gatherv");
  std::vector<std::vector<double>> by_rank;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    const auto begin = all.begin() + offsets[i];
    by_rank.emplace_back(begin, begin + lengths[i]);
  }
  return by_rank;
}

std::vector<std::string> gather_host_names(MPI_Comm world) {
  const std::vector<std::string> by_rank = gather_host_of_rank(world);
  const std::set<std::string> hosts(by_rank.begin(), by_rank.end());
  return {hosts.begin(), hosts.end()};
}

bool sum_to_root(MPI_Comm world, const std::uint64_t (&mine)[2], std::uint64_t (&total)[2]) {
  return PMPI_Reduce(mine, total, 2, MPI_UINT64_T, MPI_SUM, 0, world) == MPI_SUCCESS;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int length = 0;
  if (PMPI_Get_library_version(text, &length) != MPI_SUCCESS) return "unknown";
  std::string version(text, static_cast<std::size_t>(length));
  // Open MPI counts the terminating NUL in the length.
  const auto newline = version.find_first_of(std::string("\r\n\0", 3));
  return newline == std::string::npos ? version : version.substr(0, newline);
}

}  // namespace harmonize::sync
