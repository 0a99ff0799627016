# Issue 10: what the report says checked against ground truth - late exits
# flagged, the clock-error bound honest, the end-of-run clock check.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_honest_numbers.py TIMEOUT 900)
