# Issue 27, item 3: the MPI library obeys the decision file harmonize-tune
# writes (Open MPI's rules file, MPICH's selection JSON), told by the calls a
# reduction makes to a user-defined operation; issue 46: harmonize-tune
# --check reads a rules file strictly and proves each rule with a witness.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_decision_files.py)
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_tune_check.py TIMEOUT 600)
