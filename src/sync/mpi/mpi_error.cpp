#include "sync/mpi/mpi_error.hpp"

namespace harmonize::sync {

std::string describe_mpi_error(const char* call, int status) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int length = 0;
  if (PMPI_Error_string(status, text, &length) != MPI_SUCCESS) length = 0;
  std::string message = std::string(call) + " failed";
  if (length > 0) message += ": " + std::string(text, static_cast<std::size_t>(length));
  return message;
}

MpiError::MpiError(const char* call, int status)
    : std::runtime_error(describe_mpi_error(call, status)), status_(status) {}

}  // namespace harmonize::sync
