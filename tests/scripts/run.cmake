# Launcher tests (scripts/harmonize-run): Open MPI for real, MPICH/srun command lines.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_run.py)
