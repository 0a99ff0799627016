# The global clock (issue 3): harmonize-clockcheck against test-clock ground truth.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_clock.py TIMEOUT 300 LABELS clock)
# HARMONIZE_SYNC=none: clocks taken as global, checked (issue 28).
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_given_clock.py TIMEOUT 300 LABELS clock)
