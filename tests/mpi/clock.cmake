# The global clock (issue 3): harmonize-clockcheck against test-clock ground truth.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_clock.py TIMEOUT 300 LABELS clock)
