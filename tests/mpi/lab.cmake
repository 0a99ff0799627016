# Issue 14: a cluster of network namespaces (python/harmonize_tools/lab) - H2HCA
# across real node boundaries, against the truth of per-host test clocks.
# Skipped with a reason where labs cannot be made (not root).
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_lab.py TIMEOUT 600 LABELS lab)
