# harmonize-tune (issue 27): the algorithms the MPI libraries list, the decision files,
# and a tuning end to end on the stand-in benchmark (no build, no MPI needed).
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_tune.py)
