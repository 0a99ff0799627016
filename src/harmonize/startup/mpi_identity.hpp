#pragma once
// Whether the program runs the MPI library this libharmonize.so was built
// for. Preloaded into a program of the other MPI, the library's own handles
// (Open MPI's are pointers, MPICH's integers) reach the program's MPI, which
// stopped with "MPI_Comm_test_inter: Invalid communicator" and no word of
// harmonize. Asked before the library touches any handle.
#include <optional>
#include <string>

namespace harmonize {

// The one line saying which MPI the build is for, which the program runs,
// and which build to use; nullopt when they are the same (or cannot be told).
std::optional<std::string> wrong_mpi_build();

}  // namespace harmonize
