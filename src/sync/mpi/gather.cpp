#include "sync/mpi/gather.hpp"

#include "sync/mpi/mpi_error.hpp"

namespace harmonize::sync {

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
