# Issue 28: the timeline on the global clock (HARMONIZE_TRACE) and the global
# clock lent to programs (MPIX_Harmonize_gettime, HARMONIZE_WTIME=global),
# both judged against ground truth.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_trace.py TIMEOUT 600)
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_global_clock.py TIMEOUT 600)
