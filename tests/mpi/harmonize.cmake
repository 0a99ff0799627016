harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_harmonize.py TIMEOUT 900)
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_report.py)
