#pragma once
// What world rank 0 collects at MPI_Finalize for the report, over the
// library's private world. Throws MpiError.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace harmonize::sync {

// Rank 0 gets every process's `mine` (by rank); the others get nothing.
std::vector<std::vector<double>> gather_to_root(MPI_Comm world, const std::vector<double>& mine);

// Rank 0 gets the distinct processor names, sorted; the others nothing.
std::vector<std::string> gather_host_names(MPI_Comm world);

// Rank 0 gets the element-wise sums of `mine` in `total`; false on failure.
bool sum_to_root(MPI_Comm world, const std::uint64_t (&mine)[2], std::uint64_t (&total)[2]);

// The first line of MPI_Get_library_version.
std::string mpi_library_version();

}  // namespace harmonize::sync
