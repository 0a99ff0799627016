# Application tests are pytest files; CTest runs each file as one test and
# hands it the build through the environment (read by tests/conftest.py).

execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _mpiexec_version ERROR_VARIABLE _mpiexec_version)
if(_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(HARMONIZE_MPI_FLAVOR openmpi)
elseif(_mpiexec_version MATCHES "HYDRA|Hydra")
  set(HARMONIZE_MPI_FLAVOR mpich)
else()
  set(HARMONIZE_MPI_FLAVOR unknown)
endif()
message(STATUS "harmonize: tests launch with ${MPIEXEC_EXECUTABLE} (${HARMONIZE_MPI_FLAVOR})")

set(HARMONIZE_TEST_ENVIRONMENT
  HZTEST_BUILD_DIR=${PROJECT_BINARY_DIR}
  HZTEST_SOURCE_DIR=${PROJECT_SOURCE_DIR}
  HZTEST_MPIEXEC=${MPIEXEC_EXECUTABLE}
  HZTEST_MPI_FLAVOR=${HARMONIZE_MPI_FLAVOR}
  HZTEST_MPIF90=${HARMONIZE_MPIF90}
  OMPI_ALLOW_RUN_AS_ROOT=1
  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  PYTHONDONTWRITEBYTECODE=1)

# harmonize_pytest(<file> [TIMEOUT s] [LABELS ...]): one CTest test per file.
function(harmonize_pytest file)
  cmake_parse_arguments(P "" "TIMEOUT" "LABELS" ${ARGN})
  if(NOT P_TIMEOUT)
    set(P_TIMEOUT 300)
  endif()
  get_filename_component(stem ${file} NAME_WE)
  get_filename_component(area ${file} DIRECTORY)
  get_filename_component(area ${area} NAME)
  add_test(NAME "${area}: ${stem}"
    COMMAND ${HARMONIZE_PYTHON} -m pytest -q -p no:cacheprovider ${file}
    WORKING_DIRECTORY ${PROJECT_BINARY_DIR})
  set_tests_properties("${area}: ${stem}" PROPERTIES
    ENVIRONMENT "${HARMONIZE_TEST_ENVIRONMENT}" TIMEOUT ${P_TIMEOUT} LABELS "${area};${P_LABELS}")
endfunction()
