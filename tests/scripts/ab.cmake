# harmonize-ab: parsers on recorded benchmark output, statistics, end to end on harmonize-example.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_ab_parsing.py)
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_ab_stats.py)
# --interleave --until-decided's sequential rule: exact, and its level on simulated A/A runs.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_ab_sequential.py)
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_ab_end_to_end.py TIMEOUT 600)
# harmonize-ab when things go wrong: interrupts, full disk, corrupt files (no build needed).
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_ab_robustness.py TIMEOUT 600)
# Named sides and --sweep: b(delta) on a stand-in benchmark (no build, no MPI needed).
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_ab_sweep.py)
# delta intervals over runs and --until-decided on the same stand-in, one run disturbed on purpose.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_ab_decide.py)
