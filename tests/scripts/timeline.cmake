# harmonize-timeline (issue 28): a timeline drawn, on a trace whose times are known.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_timeline.py)
