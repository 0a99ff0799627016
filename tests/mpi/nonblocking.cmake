# Issue 29: non-blocking collectives timed from their start to the call that
# completes their request, matched like the blocking ones.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_nonblocking.py TIMEOUT 600)
