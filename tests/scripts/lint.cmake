# The Python side is flake8-clean (.flake8; Debian: python3-flake8): the
# harmonize_tools package, the launchers, the tests and their Python stand-ins.
add_test(NAME "scripts: flake8"
  COMMAND ${HARMONIZE_PYTHON} -m flake8 --config ${PROJECT_SOURCE_DIR}/.flake8
    python scripts/harmonize-run scripts/harmonize-ab scripts/harmonize-lab scripts/harmonize-scale
    scripts/harmonize-tune
    tests tests/fixtures/sweep/fake-mpiexec
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties("scripts: flake8" PROPERTIES TIMEOUT 120 LABELS "scripts;lint")
