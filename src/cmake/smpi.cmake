# SimGrid/SMPI build (-DHARMONIZE_SMPI=ON, configured with CC=smpicc CXX=smpicxx):
# thousands of simulated ranks run the real library on a simulated platform
# (docs/scaling.md). SMPI runs every rank in one OS process and has no dynamic
# preloading, so the library is a static archive linked into the simulated
# program; SMPI's MPI_* symbols are weak, the archive's win.
if(NOT CMAKE_CXX_COMPILER MATCHES "smpicxx" OR NOT CMAKE_C_COMPILER MATCHES "smpicc")
  message(FATAL_ERROR "HARMONIZE_SMPI needs the SimGrid compilers: "
    "CC=smpicc CXX=smpicxx cmake -DHARMONIZE_SMPI=ON ... (package libsimgrid-dev)")
endif()
find_program(HARMONIZE_SMPIRUN smpirun REQUIRED)
set(MPIEXEC_EXECUTABLE ${HARMONIZE_SMPIRUN})
set(MPI_C_VERSION "SMPI")
set(MPI_C_COMPILER ${CMAKE_C_COMPILER})
# The compiler wrappers bring mpi.h and libsimgrid; the rest of the build keeps
# linking MPI::MPI_C as usual.
add_library(MPI::MPI_C INTERFACE IMPORTED)
# Simulated programs: the tests, the install and hwloc (the SMPI build is for
# simulated platforms, whose hosts have no sockets to bind to) are not built.
set(HARMONIZE_BUILD_TESTS OFF CACHE BOOL "Build the test suite" FORCE)
set(HARMONIZE_SMPI_DEFINITIONS HARMONIZE_SMPI=1)
# smpirun dlopens the program (one copy per rank, privatizing its globals) and
# looks up `main` with dlsym: nothing may be hidden. Hiding only mattered for
# a library preloaded into a foreign program.
set(CMAKE_CXX_VISIBILITY_PRESET default)
set(CMAKE_C_VISIBILITY_PRESET default)
set(CMAKE_VISIBILITY_INLINES_HIDDEN OFF)
# C++ inline variables and the statics of inline functions are STB_GNU_UNIQUE
# symbols, which the dynamic loader unifies across all copies of the program:
# every simulated rank would share one reentrancy guard (shim/reentrancy_guard.hpp),
# and ranks would pass each other's barriers through. Plain weak symbols stay
# per copy.
add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)
# The program is a shared object that smpirun loads: bound to itself, its
# calls to MPI_* reach the library's wrappers under every privatization
# (dlopen loads each copy with RTLD_DEEPBIND; mmap loads it once, where
# SimGrid's own MPI_* came first in the global scope).
add_link_options(-Wl,-Bsymbolic)
