harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_interception.py)
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_policy_errors.py)
