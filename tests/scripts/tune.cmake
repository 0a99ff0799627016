# harmonize-tune (issue 27): the algorithms the MPI libraries list, the decision files,
# and a tuning end to end on the stand-in benchmark (no build, no MPI needed).
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_tune.py)
# harmonize-tune --interleave (issue 45): the pooled rule, then the real library on
# harmonize-example (Open MPI's allreduce and bcast algorithms, one refused).
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_tune_interleaved.py TIMEOUT 900)
