# Issue 10: the shared-clock assumption of h2hca checked, with per-process test
# clocks and a real time namespace; the fallback to per-process sync.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_shared_clock.py TIMEOUT 600 LABELS clock)
