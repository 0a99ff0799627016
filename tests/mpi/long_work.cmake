# Issue 43: work between barriers (sleep, spin) must not collapse the slack.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_long_work.py TIMEOUT 600)
