# Application tests are pytest files; CTest runs each file as one test and
# hands it the build through the environment (read by tests/conftest.py).

# The launcher's MPI, told as harmonize-run tells it (harmonize_tools.common).
execute_process(COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${PROJECT_SOURCE_DIR}/python
  ${HARMONIZE_PYTHON} -m harmonize_tools.common launcher-kind ${MPIEXEC_EXECUTABLE}
  OUTPUT_VARIABLE _mpiexec_kind OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(_mpiexec_kind MATCHES "^(openmpi|mpich)$")
  set(HARMONIZE_MPI_FLAVOR ${_mpiexec_kind})
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
