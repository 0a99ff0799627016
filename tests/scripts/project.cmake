harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_docs.py)
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_install.py)
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_exports.py)
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_frontier.py)
