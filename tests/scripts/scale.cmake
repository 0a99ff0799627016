# SimGrid/SMPI: the library on 64 simulated ranks against ground truth (skipped
# without SimGrid). The first run builds the SMPI variant in <build>/smpi.
harmonize_pytest(${CMAKE_CURRENT_LIST_DIR}/test_scale.py TIMEOUT 900 LABELS smpi)
