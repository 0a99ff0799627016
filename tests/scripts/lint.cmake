# The Python side is flake8-clean (.flake8; Debian: python3-flake8): every
# module of the harmonize_tools package, every launcher (scripts/harmonize-*:
# harmonize-run and the links to it), the tests and their Python stand-ins.
file(GLOB HARMONIZE_LAUNCHERS CONFIGURE_DEPENDS LIST_DIRECTORIES false RELATIVE ${PROJECT_SOURCE_DIR}
  ${PROJECT_SOURCE_DIR}/scripts/harmonize-*)
add_test(NAME "scripts: flake8"
  COMMAND ${HARMONIZE_PYTHON} -m flake8 --config ${PROJECT_SOURCE_DIR}/.flake8
    python ${HARMONIZE_LAUNCHERS}
    tests tests/fixtures/sweep/fake-mpiexec
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties("scripts: flake8" PROPERTIES TIMEOUT 120 LABELS "scripts;lint")
