# Issue 27, item 3: the MPI library obeys the decision file harmonize-tune
# writes (Open MPI's rules file, MPICH's selection JSON), told by the calls an
# allreduce makes to a user-defined operation.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_decision_files.py)
