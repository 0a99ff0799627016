#pragma once
// Every internal MPI call's result is checked. Deep inside a sync, where a
// failure cannot be returned through the algorithms, it becomes an MpiError;
// the session catches it and stops harmonizing that communicator, so no
// exception ever reaches the host program.
#include <mpi.h>

#include <stdexcept>
#include <string>

namespace harmonize::sync {

class MpiError : public std::runtime_error {
 public:
  MpiError(const char* call, int status);
  int status() const { return status_; }

 private:
  int status_;
};

// "PMPI_Send: <MPI's error string>".
std::string describe_mpi_error(const char* call, int status);

inline void check_mpi(int status, const char* call) {
  if (status != MPI_SUCCESS) throw MpiError(call, status);
}

}  // namespace harmonize::sync
