# Issue 13: arrival patterns imposed after the harmonized barrier
# (HARMONIZE_ARRIVAL), checked against the truth of the test clocks.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_arrival.py TIMEOUT 600)
