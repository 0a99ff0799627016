# Issue 12: every blocking collective of an unmodified program timed on the
# global clock and matched across its members off the hot path.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_collectives.py TIMEOUT 600)
