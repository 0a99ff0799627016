# scripts/harmonize-lab: arguments, teardown on signals (issue 14).
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_lab_script.py)
