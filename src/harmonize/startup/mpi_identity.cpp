#include "harmonize/startup/mpi_identity.hpp"

#include <dlfcn.h>
#include <mpi.h>

namespace harmonize {
namespace {

// The MPI library the program's calls reach: the object holding the first
// PMPI_Init of the global scope (the program's own MPI comes before the
// preloaded library's dependencies), and what it is, told by functions
// only that MPI exports (functions: a data symbol may be copied into the
// program by a copy relocation, and then names the program).
struct ProgramMpi {
  std::string path;
  bool open_mpi = false;
  bool mpich = false;
};

std::optional<ProgramMpi> program_mpi() {
  Dl_info info{};
  void* init = dlsym(RTLD_DEFAULT, "PMPI_Init");
  if (init == nullptr || dladdr(init, &info) == 0 || info.dli_fname == nullptr) return std::nullopt;
  void* handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return std::nullopt;
  ProgramMpi mpi{info.dli_fname, dlsym(handle, "ompi_mpi_init") != nullptr,
                 dlsym(handle, "MPIR_Err_create_code") != nullptr};
  dlclose(handle);
  return mpi;
}

std::string mismatch(const char* built_for, const char* runs, const std::string& path,
                     const char* use) {
  return std::string("this libharmonize.so is built for ") + built_for + ", but the program runs " +
         runs + " (" + path + "): nothing is harmonized or measured in this run; " + use;
}

}  // namespace

std::optional<std::string> wrong_mpi_build() {
#if defined(HARMONIZE_SMPI)
  return std::nullopt;
#else
  const std::optional<ProgramMpi> mpi = program_mpi();
  if (!mpi) return std::nullopt;
#if defined(OPEN_MPI)
  if (mpi->open_mpi) return std::nullopt;
  return mismatch("Open MPI", mpi->mpich ? "MPICH" : "another MPI", mpi->path,
                  "preload the build made with that MPI (MPICH: scripts/test --mpi mpich builds "
                  "build-mpich/lib/libharmonize.so; harmonize-run picks the launcher's)");
#else
  if (!mpi->open_mpi) return std::nullopt;
  return mismatch("MPICH", "Open MPI", mpi->path,
                  "preload the build made with Open MPI (build/lib/libharmonize.so; "
                  "harmonize-run picks the launcher's)");
#endif
#endif
}

}  // namespace harmonize
