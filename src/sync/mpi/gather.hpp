#pragma once
// Small collectives of MPI_Finalize over the library's private world (the
// records themselves travel up a tree: tree_merge.hpp).
#include <mpi.h>

#include <cstdint>
#include <string>

namespace harmonize::sync {

// Rank 0 gets the element-wise sums of `mine` in `total`; false on failure.
bool sum_to_root(MPI_Comm world, const std::uint64_t (&mine)[2], std::uint64_t (&total)[2]);

// The first line of MPI_Get_library_version.
std::string mpi_library_version();

}  // namespace harmonize::sync
