# Small MPI programs the application tests run under the library. They are
# plain MPI programs: they never link libharmonize, they get it preloaded.
set(HARMONIZE_TEST_PROGRAM_DIR ${PROJECT_BINARY_DIR}/tests/programs)
enable_language(C)
find_package(MPI REQUIRED COMPONENTS C)
foreach(program barrier_loop barrier_errors no_finalize subcomm threads late_comm comm_exhaust per_process_comms preempted_spin
        collective_delays collective_burst collective_free arrival_truth inter_collectives
        report_dir_vanishes wtime_truth nonblocking_truth nonblocking_endings nonblocking_threads
        reduction_signature interleaved_signature barrier_work every_collective)
  add_executable(${program} ${CMAKE_CURRENT_LIST_DIR}/programs/${program}.c)
  target_link_libraries(${program} PRIVATE MPI::MPI_C)
  set_target_properties(${program} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${HARMONIZE_TEST_PROGRAM_DIR})
endforeach()

target_link_libraries(threads PRIVATE Threads::Threads)
target_link_libraries(preempted_spin PRIVATE Threads::Threads)
target_link_libraries(nonblocking_threads PRIVATE Threads::Threads)

# Preloaded before the library to break one message of the report's merge.
add_library(fail_tree_recv SHARED ${CMAKE_CURRENT_LIST_DIR}/programs/fail_tree_recv.c)
target_link_libraries(fail_tree_recv PRIVATE MPI::MPI_C ${CMAKE_DL_LIBS})
# Its PMPI_Recv must be exported to interpose: MPICH's mpi.h, unlike Open MPI's,
# leaves the declaration to the project's hidden default.
set_target_properties(fail_tree_recv PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${HARMONIZE_TEST_PROGRAM_DIR}
  C_VISIBILITY_PRESET default)

# The one program that links the library: it calls the public API directly.
add_executable(explicit_harmonize ${CMAKE_CURRENT_LIST_DIR}/programs/explicit_harmonize.c)
target_link_libraries(explicit_harmonize PRIVATE harmonize MPI::MPI_C)
set_target_properties(explicit_harmonize PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${HARMONIZE_TEST_PROGRAM_DIR}
  BUILD_RPATH ${PROJECT_BINARY_DIR}/lib)

# Fortran programs prove that the Fortran bindings are intercepted too; they
# need a Fortran compiler and MPI's Fortran support, else they are skipped.
include(CheckLanguage)
check_language(Fortran)
if(CMAKE_Fortran_COMPILER)
  enable_language(Fortran)
  find_package(MPI COMPONENTS Fortran)
endif()
if(MPI_Fortran_FOUND)
  foreach(program barrier_mpif barrier_f08 collectives_mpif collectives_f08 wtime_mpif wtime_f08
                  nonblocking_mpif nonblocking_f08)
    add_executable(${program} ${CMAKE_CURRENT_LIST_DIR}/programs/${program}.f90)
    target_link_libraries(${program} PRIVATE MPI::MPI_Fortran)
    set_target_properties(${program} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${HARMONIZE_TEST_PROGRAM_DIR})
  endforeach()
  # They call the public API's Fortran binding, so they link the library
  # (before MPI: its MPI_WTIME comes first without a preload too).
  foreach(program wtime_mpif wtime_f08)
    target_link_libraries(${program} PRIVATE harmonize)
    set_target_properties(${program} PROPERTIES BUILD_RPATH ${PROJECT_BINARY_DIR}/lib)
  endforeach()
  # mpif.h has no interfaces: passing MPI_IN_PLACE where a buffer of another
  # type went before is what such programs do; gfortran >= 10 wants it said.
  if(CMAKE_Fortran_COMPILER_ID STREQUAL "GNU" AND CMAKE_Fortran_COMPILER_VERSION VERSION_GREATER_EQUAL 10)
    target_compile_options(collectives_mpif PRIVATE -fallow-argument-mismatch)
    target_compile_options(nonblocking_mpif PRIVATE -fallow-argument-mismatch)
  endif()
else()
  message(STATUS "harmonize: no MPI Fortran compiler; Fortran interception tests are skipped")
endif()
